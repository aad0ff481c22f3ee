"Full check: the audit passes and the web server (other users) can still serve uploads/."
import os, stat, subprocess, sys

problems = []
a = subprocess.run([sys.executable, 'audit.py'], capture_output=True, text=True)
if a.returncode: problems.append('audit: ' + a.stdout.strip())
want = sorted(f'photo-{i}.txt' for i in range(1, 6))
d = stat.S_IMODE(os.stat('uploads').st_mode)
if d != 0o755: problems.append(f'uploads/: mode {d:o}; the web server needs 755 (owner writes, others list and read)')
for name in want:
    try:
        m = stat.S_IMODE(os.stat(os.path.join('uploads', name)).st_mode)
    except OSError as e:
        problems.append(f'uploads/{name}: {e.strerror}'); continue
    if m != 0o644: problems.append(f'uploads/{name}: mode {m:o}; must be 644')
print('\n'.join(problems) or 'OK: audit clean and uploads served')
sys.exit(1 if problems else 0)
