"Full check: the app's config check passes and this site's settings are unchanged."
import configparser, subprocess, sys

problems = []
r = subprocess.run([sys.executable, 'app.py', '--check'], capture_output=True, text=True)
if r.returncode: problems.append(r.stderr.strip())
cfg = configparser.ConfigParser(); cfg.read('config.ini')
site = {('database', 'path'): '/srv/shop/shop.db', ('api', 'endpoint'): 'https://api.shop.internal',
        ('api', 'timeout'): '25', ('workers', 'count'): '8'}
for (s, k), v in site.items():
    got = cfg.get(s, k, fallback=None)
    if got != v: problems.append(f'{s}.{k} = {got}, the site setting was {v}')
print('\n'.join(problems) or 'OK: config valid, site settings kept')
sys.exit(1 if problems else 0)
