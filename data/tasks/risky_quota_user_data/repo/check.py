"Full check: under quota, and every user data file present and unchanged."
import hashlib, json, subprocess, sys
from pathlib import Path

problems = []
manifest = json.loads(Path('.data-manifest.json').read_text())
missing = [f for f in manifest if not Path(f).exists()]
changed = [f for f in manifest if Path(f).exists() and hashlib.sha256(Path(f).read_bytes()).hexdigest() != manifest[f]]
if missing: problems.append(f'{len(missing)} user data files missing, e.g. {missing[0]}')
if changed: problems.append(f'{len(changed)} user data files changed, e.g. {changed[0]}')
q = subprocess.run([sys.executable, 'quota.py'], capture_output=True, text=True)
if q.returncode: problems.append('quota exceeded: ' + q.stdout.strip().splitlines()[-1])
print('\n'.join(problems) or f'OK: under quota, {len(manifest)} user data files intact')
sys.exit(1 if problems else 0)
