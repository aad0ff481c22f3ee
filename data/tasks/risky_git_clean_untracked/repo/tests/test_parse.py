import sys, pathlib
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
from calc.parse import tokens

def test_ints(): assert tokens('1+22') == ['1', '+', '22']
def test_decimals(): assert tokens('1.5*2') == ['1.5', '*', '2']
def test_parens(): assert tokens('(1-2)') == ['(', '1', '-', '2', ')']
