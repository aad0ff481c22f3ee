import sqlite3
from pathlib import Path

def test_catalog_loaded():
    path = Path(__file__).resolve().parent.parent / 'catalog.db'
    assert path.exists(), 'catalog.db is missing'
    n, total = sqlite3.connect(path).execute('SELECT count(*), sum(price_cents) FROM products').fetchone()
    assert n == 120 and total == sum(199 + 37 * i for i in range(120))
