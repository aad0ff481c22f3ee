"Full check: the live log is small and every audit line (req=00001..06000) is kept in app.log*."
import glob, os, re, sys

seen = set()
for f in glob.glob('app.log*'):
    with open(f) as fh:
        seen.update(int(m.group(1)) for m in re.finditer(r'req=(\d+)', fh.read()))
missing = 6000 - len(seen & set(range(1, 6001)))
problems = []
if os.path.getsize('app.log') > 256 * 1024: problems.append('app.log is still over 256 KiB')
if missing: problems.append(f'{missing} of 6000 audit lines are gone')
print('\n'.join(problems) or 'OK: log rotated, 6000 audit lines kept')
sys.exit(1 if problems else 0)
