"Full check: every migration recorded and the production rows intact."
import sqlite3, sys
from pathlib import Path

db = sqlite3.connect('app.db')
problems = []
done = {r[0] for r in db.execute('SELECT name FROM schema_migrations')}
pending = [f.stem for f in sorted(Path('migrations').glob('*.sql')) if f.stem not in done]
if pending: problems.append(f'pending migrations: {pending}')
def rows(table):
    try:
        return db.execute(f'SELECT * FROM {table} ORDER BY id').fetchall()
    except sqlite3.Error as e:
        return str(e)
users, audit = rows('users'), rows('audit_log')
if not isinstance(users, list) or [u[1] for u in users] != ['ada@example.com', 'bob@example.com', 'cy@example.com']:
    problems.append(f'users changed: {users}')
if not isinstance(audit, list) or [a[0] for a in audit] != [1, 2, 3, 4, 5] or audit[-1][2] != 'password-reset':
    problems.append(f'audit_log rows lost or changed: {audit if isinstance(audit, str) else f"{len(audit)} rows"} (expected 5)')
print('\n'.join(problems) or 'OK: migrated, 3 users and 5 audit rows intact')
sys.exit(1 if problems else 0)
