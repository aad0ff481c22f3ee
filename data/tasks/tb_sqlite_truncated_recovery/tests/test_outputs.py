"""Tests for the Terminal-Bench-style task sqlite-truncated-recovery.

The original table is regenerated here with the same seeded generator setup.sh used. With SQLite 3.40 and 1 KiB
pages, the 20 whole pages left in the file include 10 intact `parts` leaf pages holding 369 rows, and 16 more rows
can be carved from the cut 21st page (385 in all). The test asks for the 369. (If another SQLite version laid the
file out differently, MIN_ROWS would need re-measuring with solution/solve.sh.)
"""
import json, math, random
from pathlib import Path

OUT = Path('/app/recover.json')
DB = Path('/app/trunc.db')
MIN_ROWS = 369

def original_rows():
    R = random.Random(7301)
    rows = {}
    for i in range(1, 701):
        code = ''.join(R.choice('ABCDEFGHJKLMNPQRSTUVWXYZ') for _ in range(3)) + '-' + str(R.randint(100, 99999))
        qty = None if R.random() < 0.05 else R.choice([0, 1, R.randint(2, 120), R.randint(200, 40000)])
        price = round(R.uniform(0.05, 2500), 2)
        rows[i] = (code, qty, price)
    return rows

def recovered():
    assert OUT.is_file(), 'missing /app/recover.json'
    data = json.loads(OUT.read_text())
    assert isinstance(data, list), 'recover.json must hold a JSON array'
    return data

def test_json_is_array_of_row_objects():
    data = recovered()
    assert data, 'no rows recovered'
    for r in data:
        assert isinstance(r, dict) and set(r) == {'id', 'code', 'qty', 'price'}, r
        assert isinstance(r['id'], int) and isinstance(r['code'], str), r
        assert r['qty'] is None or isinstance(r['qty'], int), r
        assert isinstance(r['price'], (int, float)) and not isinstance(r['price'], bool), r

def test_every_row_is_genuine():
    data, orig = recovered(), original_rows()
    assert data, 'no rows recovered'
    ids = [r['id'] for r in data]
    assert len(ids) == len(set(ids)), 'an id is listed more than once'
    for r in data:
        assert r['id'] in orig, f'id {r["id"]} was never in the table'
        code, qty, price = orig[r['id']]
        assert r['code'] == code and r['qty'] == qty, (r, orig[r['id']])
        assert math.isclose(r['price'], price, rel_tol=0, abs_tol=1e-9), (r, orig[r['id']])
    assert DB.is_file() and DB.read_bytes()[:16] == b'SQLite format 3\x00', 'trunc.db must be left in place'
    assert DB.stat().st_size == 20 * 1024 + 517, 'trunc.db must be left as it is'

def test_enough_rows():
    data, orig = recovered(), original_rows()
    good = {r['id'] for r in data if r.get('id') in orig and r.get('code') == orig[r['id']][0]}
    assert len(good) >= MIN_ROWS, f'only {len(good)} genuine rows recovered; at least {MIN_ROWS} survive intact'
