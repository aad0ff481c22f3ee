"Build catalog.db from the vendor feed catalog.sql."
import sqlite3
from pathlib import Path

root = Path(__file__).resolve().parent.parent
out = root / 'catalog.db'
if out.exists():
    out.unlink()
db = sqlite3.connect(out)
db.executescript((root / 'catalog.sql').read_text())
db.commit()
print(f"catalog.db: {db.execute('SELECT count(*) FROM products').fetchone()[0]} products")
