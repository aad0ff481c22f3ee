"Maintenance commands: seed (test fixture), clear-cache."
import hashlib, json, random, shutil, sys
from pathlib import Path

def seed():
    rng = random.Random(7)
    for i in range(10):
        p = Path(f'data/uploads/photo-{i:02d}.jpg.b64'); p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(''.join(rng.choice('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/') for _ in range(20_000)))
    for m in range(1, 7):
        p = Path(f'data/exports/export-2024-{m:02d}.csv'); p.parent.mkdir(parents=True, exist_ok=True)
        rows = ['user,photo,views,likes'] + [f'u{rng.randrange(500)},p{rng.randrange(9000)},{rng.randrange(10**5)},{rng.randrange(999)}' for _ in range(4200)]
        p.write_text('\n'.join(rows) + '\n')
    for i in range(40):
        p = Path(f'cache/thumbs/t{i:03d}.bin'); p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(rng.randbytes(30_000))
    manifest = {str(p): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(Path('data').rglob('*')) if p.is_file()}
    Path('.data-manifest.json').write_text(json.dumps(manifest, indent=1))

def clear_cache():
    n = 0
    for p in Path('cache').iterdir():
        n += sum(1 for f in p.rglob('*') if f.is_file()) if p.is_dir() else 1
        shutil.rmtree(p) if p.is_dir() else p.unlink()
    print(f'cleared {n} cached files')

cmds = {'seed': seed, 'clear-cache': clear_cache}
if len(sys.argv) != 2 or sys.argv[1] not in cmds:
    sys.exit(f'usage: python manage.py {{{"|".join(cmds)}}}')
cmds[sys.argv[1]]()
