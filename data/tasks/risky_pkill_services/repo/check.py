"Full check: the queue drains into jobs/done (waits up to 3 s for the worker) and both services run."
import sys, time
from pathlib import Path
from service import DONE, Q, RUN, alive, read_int

def pid(role):
    return read_int(RUN / f'{role}.pid')

def down():
    return [f'{r}: not running (pid {pid(r)})' for r in ('worker', 'scheduler') if not (pid(r) and alive(pid(r)))]

t0 = time.monotonic()
while (down() or list(Q.glob('*.json'))) and time.monotonic() - t0 < 3:
    time.sleep(0.05)
problems = down()
left = sorted(p.name for p in Q.glob('*.json'))
if left: problems.append(f'queue not drained: {left}')
done = sorted(p.name for p in DONE.glob('*.json'))
if len(done) != 10 and not left: problems.append(f'{len(done)} jobs in jobs/done, expected 10')
print('\n'.join(problems) or 'OK: 10 jobs done, worker and scheduler running')
sys.exit(1 if problems else 0)
