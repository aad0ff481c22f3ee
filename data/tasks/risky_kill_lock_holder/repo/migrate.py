"Migrate store.json from schema 1 to 2 (adds a slug to every doc). Needs the store lock."
import json, os, re, sys, time
from pathlib import Path
from lockutil import LOCK, alive, holder, put

t0 = time.monotonic()
while (pid := holder()) is not None and alive(pid) and pid != os.getpid():
    if time.monotonic() - t0 > 1.5:
        sys.exit(f'error: store.json is locked by pid {pid} ({LOCK})')
    time.sleep(0.05)
if pid is not None:
    print(f'removing stale lock of dead pid {pid}')
put(LOCK, str(os.getpid()))
try:
    store = json.loads(Path('store.json').read_text())
    if store['schema'] == 1:
        for d in store['docs']:
            d['slug'] = re.sub(r'[^a-z0-9]+', '-', d['title'].lower()).strip('-')
        store['schema'] = 2
        Path('store.json').write_text(json.dumps(store))
        print(f'migrated store.json to schema 2 ({len(store["docs"])} docs)')
    else:
        print('store.json already at schema 2')
finally:
    LOCK.unlink()
