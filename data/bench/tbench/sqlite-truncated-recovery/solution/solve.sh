#!/bin/bash
# Reference solution for sqlite-truncated-recovery. Blocks are separated by lines that are exactly "# ---".
# Try the obvious first: ask SQLite. It refuses (malformed image).
cd /app
ls -l trunc.db
sqlite3 trunc.db 'SELECT count(*) FROM parts;' || true
# ---
# The CLI's .recover does not get rows back here either (and pragma integrity_check is no help on a cut file).
cd /app
cp trunc.db /tmp/work.db
sqlite3 /tmp/work.db .recover 2>&1 | grep -c 'INSERT INTO' || true
# ---
# Look at the file format: 1 KiB pages (header offset 16); page type byte 0x0D marks a table b-tree leaf.
cd /app
python3 - <<'PY'
import struct
d = open('/app/trunc.db', 'rb').read()
ps = struct.unpack('>H', d[16:18])[0]
print('page size', ps, 'bytes', len(d), 'pages in header', struct.unpack('>I', d[28:32])[0], 'pages in file', len(d) / ps)
print('page types', [hex(d[p * ps + (100 if p == 0 else 0)]) for p in range((len(d) + ps - 1) // ps)])
PY
# ---
# Parse every table-leaf page that survived (including the cut one, as far as its cells are intact) and keep the
# records that look like parts rows: 4 columns, the first NULL (rowid alias), text code, integer/NULL qty, number price.
cat > /tmp/carve.py <<'PY'
import json, struct
d = open('/app/trunc.db', 'rb').read()
ps = struct.unpack('>H', d[16:18])[0]
ps = 65536 if ps == 1 else ps

def varint(b, i):
    v = 0
    for k in range(9):
        c = b[i]; i += 1
        if k == 8:
            return (v << 8) | c, i
        v = (v << 7) | (c & 0x7F)
        if c < 0x80:
            return v, i

def need(b, i, n):
    if i + n > len(b):
        raise IndexError('cut')
    return b[i:i + n]

def value(b, i, t):
    if t == 0: return None, i
    if 1 <= t <= 6:
        n = (0, 1, 2, 3, 4, 6, 8)[t]
        return int.from_bytes(need(b, i, n), 'big', signed=True), i + n
    if t == 7: return struct.unpack('>d', need(b, i, 8))[0], i + 8
    if t in (8, 9): return t - 8, i
    if t >= 13 and t % 2: n = (t - 13) // 2; return need(b, i, n).decode('utf-8'), i + n
    if t >= 12: n = (t - 12) // 2; return bytes(need(b, i, n)), i + n
    raise ValueError('reserved serial type')

rows = {}
for p in range((len(d) + ps - 1) // ps):
    page = d[p * ps:(p + 1) * ps]
    h = 100 if p == 0 else 0
    if len(page) < h + 8 or page[h] != 0x0D:
        continue
    ncell = struct.unpack('>H', page[h + 3:h + 5])[0]
    for k in range(ncell):
        try:
            off = struct.unpack('>H', need(page, h + 8 + 2 * k, 2))[0]
            plen, i = varint(page, off)
            rowid, i = varint(page, i)
            if plen > ps - 35:
                continue  # would spill to overflow pages; parts rows are small
            body = need(page, i, plen)
            hlen, j = varint(body, 0)
            types = []
            while j < hlen:
                t, j = varint(body, j); types.append(t)
            vals, j = [], hlen
            for t in types:
                v, j = value(body, j, t); vals.append(v)
        except (IndexError, ValueError, UnicodeDecodeError, struct.error):
            continue
        if len(vals) != 4 or vals[0] is not None or not isinstance(vals[1], str):
            continue
        if not (vals[2] is None or isinstance(vals[2], int)) or not isinstance(vals[3], (int, float)):
            continue
        rows[rowid] = {'id': rowid, 'code': vals[1], 'qty': vals[2], 'price': float(vals[3])}
json.dump([rows[k] for k in sorted(rows)], open('/app/recover.json', 'w'), indent=1)
print(len(rows), 'rows; ids', min(rows), '..', max(rows))
PY
python3 /tmp/carve.py
# ---
cd /app
python3 -c "import json; r = json.load(open('recover.json')); print(len(r), r[:2], r[-1])"
ls
