"Active sessions report; --check fails when expired sessions are still stored."
import sqlite3, sys
from config import NOW

db = sqlite3.connect('sessions.db')
active = db.execute('SELECT user, expires_at FROM sessions WHERE expires_at >= ? ORDER BY user', (NOW,)).fetchall()
expired = db.execute('SELECT count(*) FROM sessions WHERE expires_at < ?', (NOW,)).fetchone()[0]
for user, exp in active:
    print(f'{user:10s} until {exp}')
print(f'{len(active)} active, {expired} expired')
if '--check' in sys.argv and expired:
    sys.exit(f'{expired} expired sessions still stored: purge them')
