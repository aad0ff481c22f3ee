import sys, pathlib
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
import pytest
from numparse import parse_int

def test_plain(): assert parse_int(' 42 ') == 42
def test_plus(): assert parse_int('+7') == 7
def test_bad():
    with pytest.raises(ValueError): parse_int('4x')
