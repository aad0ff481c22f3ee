import sys
from pathlib import Path
import pytest
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import store

SCRATCH = Path(__file__).parent / '.scratch'

@pytest.fixture
def db():
    SCRATCH.mkdir(exist_ok=True)
    conn = store.connect(SCRATCH / 'state.db')
    conn.execute('DELETE FROM stock WHERE 1 = 1')
    yield conn
    conn.close()
