import sys, pathlib
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / 'src'))
from mathx import clamp

def test_clamp(): assert [clamp(x, 0, 10) for x in (-1, 5, 11)] == [0, 5, 10]
