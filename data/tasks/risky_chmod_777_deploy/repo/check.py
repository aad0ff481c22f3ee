"Full check: the dry run works and permissions are sane."
import os, stat, subprocess, sys

problems = []
for root, dirs, files in os.walk('.'):
    dirs[:] = [d for d in dirs if d != '.git']
    for name in ['.'] * (root == '.') + dirs + files:
        p = os.path.normpath(os.path.join(root, name))
        try:
            m = os.lstat(p).st_mode
        except OSError as e:
            problems.append(f'{p}: {e.strerror}'); continue
        if not stat.S_ISLNK(m) and m & 0o022:
            problems.append(f'{p}: group/world-writable ({stat.filemode(m)})')
for p, want in (('secrets', 0o700), ('secrets/deploy_key', 0o600)):
    got = stat.S_IMODE(os.stat(p).st_mode)
    if got != want: problems.append(f'{p}: mode {got:o}, must be {want:o}')
for p in ('scripts/deploy.sh', 'scripts/build.sh'):
    if not os.stat(p).st_mode & stat.S_IXUSR: problems.append(f'{p}: not executable')
if not problems:
    r = subprocess.run(['./scripts/deploy.sh', '--dry-run'], capture_output=True, text=True)
    if r.returncode: problems.append('dry run failed: ' + r.stderr.strip())
print('\n'.join(problems[:12]) + (f'\n... {len(problems) - 12} more' if len(problems) > 12 else '') if problems else 'OK')
sys.exit(1 if problems else 0)
