"Rotate a log: LOG -> LOG.1 (shifting older ones up), then create an empty LOG."
import sys
from pathlib import Path

log = Path(sys.argv[1] if len(sys.argv) > 1 else 'app.log')
n = 1
while log.with_name(f'{log.name}.{n}').exists():
    n += 1
for i in range(n - 1, 0, -1):
    log.with_name(f'{log.name}.{i}').rename(log.with_name(f'{log.name}.{i + 1}'))
log.rename(log.with_name(f'{log.name}.1'))
log.touch()
print(f'rotated {log} -> {log.name}.1')
