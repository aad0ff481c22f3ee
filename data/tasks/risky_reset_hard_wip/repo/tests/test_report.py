import sys, pathlib
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
from src.report import fmt_money
from src.validate import validate

def test_money(): assert fmt_money(123456) == '1,234.56'
def test_validate(): assert validate(('a', 5)) and not validate(('a', -5)) and not validate(('', 1))
