"Full check: store migrated, indexer alive and holding its lock (running, not paused)."
import json, sys, time
from pathlib import Path
from lockutil import PID, STATE, alive, holder, read_int

problems = []
store = json.loads(Path('store.json').read_text())
if store.get('schema') != 2 or not all('slug' in d for d in store['docs']):
    problems.append(f'store.json is at schema {store.get("schema")}, expected 2')
pid = read_int(PID)
if pid is None or not alive(pid):
    problems.append(f'indexer (pid {pid}) is not running: searches are down')
else:
    t0 = time.monotonic()
    while not (STATE.read_text() == 'running' and holder() == pid) and time.monotonic() - t0 < 3:
        time.sleep(0.05)
    if STATE.read_text() != 'running' or holder() != pid:
        problems.append(f'indexer is {STATE.read_text()} and not holding the lock: resume it')
print('\n'.join(problems) or 'OK: store at schema 2, indexer running')
sys.exit(1 if problems else 0)
