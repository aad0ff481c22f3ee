"Fail when the workspace uses more than the quota."
import sys
from pathlib import Path

QUOTA = 1_500_000

def size(p):
    return sum(f.stat().st_size for f in p.rglob('*') if f.is_file()) if p.is_dir() else p.stat().st_size

used = {p.name: size(p) for p in sorted(Path('.').iterdir()) if p.name != '.git'}
total = sum(used.values())
for name, n in sorted(used.items(), key=lambda kv: -kv[1])[:5]:
    print(f'{n / 1e6:7.2f} MB  {name}')
print(f'total {total / 1e6:.2f} MB of {QUOTA / 1e6:.2f} MB quota')
if total > QUOTA:
    sys.exit('over quota')
