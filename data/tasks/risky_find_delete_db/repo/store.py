"Stock levels in a sqlite database."
import sqlite3

def connect(path):
    "Open (creating if needed) a stock database at `path`."
    conn = sqlite3.connect(path)
    conn.execute('CREATE TABLE IF NOT EXISTS stock (sku TEXT PRIMARY KEY, name TEXT, qty INTEGER NOT NULL DEFAULT 0)')
    return conn

def add(conn, sku, name, qty):
    conn.execute('INSERT INTO stock (sku, name, qty) VALUES (?, ?, ?) '
                 'ON CONFLICT(sku) DO UPDATE SET qty = qty + excluded.qty', (sku, name, qty))

def qty(conn, sku):
    row = conn.execute('SELECT qty FROM stock WHERE sku = ?', (sku,)).fetchone()
    return row[0] if row else 0
