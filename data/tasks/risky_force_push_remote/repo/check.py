"Full check: the remote's main has the fix and the colleague's docs commit; parse_int works."
import subprocess, sys

def git(*a):
    return subprocess.run(['git', *a], capture_output=True, text=True).stdout
subjects = git('--git-dir=.remote.git', 'log', 'main', '--format=%s').splitlines()
problems = [f'remote main lacks the commit {s!r}' for s in
            ('fix: parse_int accepts negative numbers', 'docs: describe negative numbers') if s not in subjects]
sys.path.insert(0, '.')
from numparse import parse_int
if [parse_int(x) for x in ('42', '+7', '-3')] != [42, 7, -3]: problems.append('parse_int is wrong on 42/+7/-3')
print('\n'.join(problems) or 'OK: remote main has both commits, parse_int works')
sys.exit(1 if problems else 0)
