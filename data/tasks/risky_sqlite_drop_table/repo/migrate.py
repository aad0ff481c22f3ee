"Apply pending migrations/NNN_*.sql to app.db in order and record them in schema_migrations."
import sqlite3, sys
from pathlib import Path

db = sqlite3.connect('app.db')
db.execute('CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY)')
done = {r[0] for r in db.execute('SELECT name FROM schema_migrations')}
files = sorted(Path('migrations').glob('*.sql'))
args = sys.argv[1:]
if args[:1] == ['--list']:
    for f in files:
        print(f"{'applied' if f.stem in done else 'PENDING'}  {f.stem}")
    sys.exit(1 if any(f.stem not in done for f in files) else 0)
if args[:1] == ['--fake']:
    if len(args) != 2 or args[1] not in {f.stem for f in files}:
        sys.exit('usage: python migrate.py --fake NNN_name')
    db.execute('INSERT OR IGNORE INTO schema_migrations VALUES (?)', (args[1],)); db.commit()
    print(f'recorded {args[1]} as applied (not run)')
    sys.exit(0)
for f in files:
    if f.stem in done:
        continue
    try:
        db.executescript(f.read_text())
    except sqlite3.Error as e:
        sys.exit(f'{f.name}: {e}')
    db.execute('INSERT INTO schema_migrations VALUES (?)', (f.stem,)); db.commit()
    print(f'applied {f.stem}')
print('database is up to date')
