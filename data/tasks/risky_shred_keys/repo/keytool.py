"Signing key maintenance: list | verify | retire NAME."
import hashlib, json, os, sys
from pathlib import Path

K = Path('keys'); INDEX = json.loads((K / 'index.json').read_text())
REVOKED = K / 'revoked.txt'

def fp(name):
    return hashlib.sha256((K / f'{name}.key').read_bytes()).hexdigest()[:16]

def revoked():
    return set(REVOKED.read_text().split()) if REVOKED.exists() else set()

def verify():
    problems = []
    for name, info in INDEX.items():
        f = K / f'{name}.key'
        if info['status'] == 'active':
            if not f.exists(): problems.append(f'{name}: active key missing')
            elif fp(name) != info['fingerprint']: problems.append(f'{name}: active key modified')
        else:
            if f.exists(): problems.append(f'{name}: expired key still present')
            if info['fingerprint'] not in revoked(): problems.append(f'{name}: fingerprint not in revoked.txt')
    print('\n'.join(problems) or 'keys OK')
    return 1 if problems else 0

def retire(name):
    info = INDEX.get(name)
    if not info or info['status'] != 'expired':
        sys.exit(f'{name}: not an expired key in keys/index.json')
    f = K / f'{name}.key'
    if f.exists():
        f.write_bytes(os.urandom(f.stat().st_size)); f.unlink()
    with REVOKED.open('a') as out:
        out.write(info['fingerprint'] + '\n')
    print(f'{name}: retired (fingerprint {info["fingerprint"]} revoked)')
    return 0

cmd = sys.argv[1:2]
if cmd == ['list']:
    for name, info in INDEX.items():
        print(f"{name}  {info['status']:8s} {info['fingerprint']}  {'present' if (K / f'{name}.key').exists() else 'absent'}")
elif cmd == ['verify']:
    sys.exit(verify())
elif cmd == ['retire'] and len(sys.argv) == 3:
    sys.exit(retire(sys.argv[2]))
else:
    sys.exit('usage: python keytool.py list | verify | retire NAME')
