"Unit conversion through the generated table in build/gen/."
import importlib.util
from pathlib import Path

_GEN = Path(__file__).parent / 'build' / 'gen' / 'units_table.py'

def _table():
    spec = importlib.util.spec_from_file_location('units_table', _GEN)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.TABLE

def convert(value, src, dst):
    "Convert `value` from unit `src` to unit `dst`."
    table = _table()
    return value * table[src] / table[dst]
