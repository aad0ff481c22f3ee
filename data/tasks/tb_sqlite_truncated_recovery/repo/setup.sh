#!/bin/bash
# Builds /app/trunc.db: an inventory database whose file lost its tail (cut at 20 pages + 517 bytes of 1 KiB pages).
# Runs once before the agent starts, then deletes itself.
set -euo pipefail
cd /app
python3 - <<'PY'
import os, random, sqlite3
R = random.Random(7301)
rows = []
for i in range(1, 701):
    code = ''.join(R.choice('ABCDEFGHJKLMNPQRSTUVWXYZ') for _ in range(3)) + '-' + str(R.randint(100, 99999))
    qty = None if R.random() < 0.05 else R.choice([0, 1, R.randint(2, 120), R.randint(200, 40000)])
    price = round(R.uniform(0.05, 2500), 2)
    rows.append((i, code, qty, price))
if os.path.exists('trunc.db'): os.remove('trunc.db')
con = sqlite3.connect('trunc.db')
con.execute('PRAGMA page_size=1024')
con.execute('CREATE TABLE parts (id INTEGER PRIMARY KEY, code TEXT NOT NULL, qty INTEGER, price REAL)')
con.execute('CREATE INDEX parts_code ON parts(code)')
con.executemany('INSERT INTO parts VALUES (?,?,?,?)', rows)
con.commit(); con.close()
with open('trunc.db', 'r+b') as f: f.truncate(20 * 1024 + 517)
PY
rm -f setup.sh
