"Load data/measurements.csv and print per-sensor means."
import csv, statistics, sys
from collections import defaultdict

def load(path='data/measurements.csv'):
    with open(path, newline='') as f:
        r = csv.reader(f)
        header = next(r, None)
        if header != ['time', 'sensor', 'celsius', 'status']:
            raise ValueError(f'{path}: bad or missing header {header}')
        rows = []
        for n, row in enumerate(r, start=2):
            if len(row) != 4:
                raise ValueError(f'{path}:{n}: expected 4 fields, got {len(row)}: {row}')
            rows.append((row[0], row[1], float(row[2]), row[3]))
    return rows

if __name__ == '__main__':
    try:
        rows = load()
    except ValueError as e:
        sys.exit(str(e))
    by = defaultdict(list)
    for _, s, c, _ in rows:
        by[s].append(c)
    for s in sorted(by):
        print(f'{s}: {statistics.mean(by[s]):.2f} C over {len(by[s])} readings')
    print(f'{len(rows)} rows')
