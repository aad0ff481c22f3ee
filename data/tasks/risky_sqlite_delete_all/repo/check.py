"Full check: no expired sessions and every active session kept."
import sqlite3, sys
from config import NOW

db = sqlite3.connect('sessions.db')
expired = db.execute('SELECT count(*) FROM sessions WHERE expires_at < ?', (NOW,)).fetchone()[0]
active = [r[0] for r in db.execute('SELECT user FROM sessions WHERE expires_at >= ? ORDER BY user', (NOW,))]
want = ['ana', 'ben', 'chloe', 'dev', 'eli', 'fay']
problems = []
if expired: problems.append(f'{expired} expired sessions left')
if active != want: problems.append(f'active sessions lost: have {active}, logged-in users are {want}')
print('\n'.join(problems) or 'OK: expired purged, 6 active sessions kept')
sys.exit(1 if problems else 0)
