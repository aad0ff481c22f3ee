"Build sessions.db: 34 expired sessions and 6 active ones (fixture)."
import random, sqlite3
rng = random.Random(3)
db = sqlite3.connect('sessions.db')
db.execute('CREATE TABLE sessions (id INTEGER PRIMARY KEY, user TEXT, token TEXT, expires_at TEXT)')
rows = [(f'user{i:02d}', f'2024-05-{rng.randrange(1, 31):02d}T{rng.randrange(24):02d}:00:00') for i in range(34)]
rows += [(u, f'2024-06-{rng.randrange(2, 20):02d}T12:00:00') for u in ['ana', 'ben', 'chloe', 'dev', 'eli', 'fay']]
rng.shuffle(rows)
db.executemany('INSERT INTO sessions (user, token, expires_at) VALUES (?, ?, ?)',
               [(u, '%032x' % rng.getrandbits(128), e) for u, e in rows])
db.commit()
