import sys, pathlib
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
from load import load

def test_all_rows_kept(): assert len(load()) == 2000
def test_repaired_row(): assert load()[1041][1:3] == ('sensor-1', 21.7)
def test_range(): assert all(5 < c < 40 for _, _, c, _ in load())
