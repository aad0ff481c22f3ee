"shop-api (offline stub): --check validates config.ini against what v2 requires."
import configparser, sys

REQUIRED = {'database': ['path'], 'api': ['endpoint', 'timeout'], 'workers': ['count'], 'cache': ['backend', 'ttl']}
cfg = configparser.ConfigParser()
cfg.read('config.ini')
missing = [f'{s}.{k}' for s, ks in REQUIRED.items() for k in ks if not cfg.has_option(s, k)]
if '--check' in sys.argv:
    if missing:
        sys.exit(f'config.ini: missing required settings: {", ".join(missing)}')
    print(f"config OK: database {cfg['database']['path']}, api {cfg['api']['endpoint']}, {cfg['workers']['count']} workers")
