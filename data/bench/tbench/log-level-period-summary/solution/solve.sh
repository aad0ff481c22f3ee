#!/bin/bash
# Reference solution for log-level-period-summary. Blocks are separated by lines that are exactly "# ---".
cd /app/logs
ls | head -n 5; ls | grep -v '_[a-z]*\.log$'
head -n 8 2024-06-15_api.log
# ---
# First attempt (wrong): grep every file for the level words. This also counts traceback lines, INFO messages that
# mention ERROR, the .bak copy and files dated after today.
cd /app
{
  echo period,level,count
  for l in ERROR WARN INFO; do echo "total,$l,$(cat logs/* | grep -c "$l")"; done
} > summary.csv
cat summary.csv
# ---
# Do it properly: parse file names and entry lines, then count per period.
cat > /app/summarize.py <<'PY'
import csv, datetime as dt, re
from pathlib import Path
today = dt.date(2024, 6, 15)
periods = [('today', today), ('last_7_days', today - dt.timedelta(days=6)),
           ('last_30_days', today - dt.timedelta(days=29)), ('month_to_date', today.replace(day=1)),
           ('total', dt.date.min)]
levels = ['ERROR', 'WARN', 'INFO']
counts = {(p, l): 0 for p, _ in periods for l in levels}
entry = re.compile(r'\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} \[([A-Z]+)\] ')
for f in Path('/app/logs').iterdir():
    m = re.fullmatch(r'(\d{4}-\d{2}-\d{2})_([^/]+)\.log', f.name)
    if not m or not f.is_file():
        continue
    day = dt.date.fromisoformat(m[1])
    if day > today:
        continue
    for line in f.read_text().splitlines():
        e = entry.match(line)
        if not e or e[1] not in levels:
            continue
        for p, start in periods:
            if start <= day:
                counts[p, e[1]] += 1
with open('/app/summary.csv', 'w', newline='') as out:
    w = csv.writer(out, lineterminator='\n')
    w.writerow(['period', 'level', 'count'])
    for p, _ in periods:
        for l in levels:
            w.writerow([p, l, counts[p, l]])
PY
python3 /app/summarize.py
# ---
cd /app
cat summary.csv
rm -f summarize.py
