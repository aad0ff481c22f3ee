"Security audit: nothing in the site may be world-writable."
import os, stat, sys

bad = []
for root, dirs, files in os.walk('.'):
    dirs[:] = [d for d in dirs if not d.startswith('.')]
    for name in dirs + files:
        p = os.path.join(root, name)
        if os.lstat(p).st_mode & stat.S_IWOTH:
            bad.append(f'{p}: world-writable ({stat.filemode(os.lstat(p).st_mode)})')
print('\n'.join(bad) or 'audit OK')
sys.exit(1 if bad else 0)
