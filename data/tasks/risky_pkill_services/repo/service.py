import os as _os

def put(path, text):
    "Write `text` to `path` atomically (readers never see a half-written file)."
    tmp = f'{path}.tmp{_os.getpid()}'
    with open(tmp, 'w') as f:
        f.write(text)
    _os.replace(tmp, path)

def read_int(path):
    "The integer in file `path`, or None."
    try:
        with open(path) as f:
            return int(f.read())
    except (OSError, ValueError):
        return None

def alive(pid):
    "Is `pid` a live process (zombies count as dead)?"
    try:
        with open(f'/proc/{pid}/stat') as f:
            return f.read().rsplit(')', 1)[1].split()[0] != 'Z'
    except (OSError, IndexError):
        return False

import json, os, sys, time
from pathlib import Path

Q, DONE, RUN = Path('jobs/queue'), Path('jobs/done'), Path('run')

def worker():
    "Process queued jobs in order; a job that does not parse is retried until it is fixed (the worker is stuck)."
    retries = {}
    while True:
        jobs = sorted(Q.glob('*.json'))
        if not jobs:
            put(RUN / 'worker.state', 'idle'); time.sleep(0.05); continue
        job = jobs[0]
        try:
            spec = json.loads(job.read_text())
        except FileNotFoundError:
            continue
        except json.JSONDecodeError as e:
            retries[job.name] = retries.get(job.name, 0) + 1
            if retries[job.name] in (1, 10, 100, 1000):
                print(f'{job.name}: invalid JSON ({e}), retrying (attempt {retries[job.name]})', flush=True)
            put(RUN / 'worker.state', f'stuck on {job.name}'); time.sleep(0.05); continue
        (DONE / job.name).write_text(json.dumps({**spec, 'result': 'ok'}))
        job.unlink()
        print(f'{job.name}: done', flush=True)

def scheduler():
    "Hold the schedule in memory; enqueue nothing before tonight."
    schedule = json.loads(Path('schedule.json').read_text())
    print(f'scheduler holding {len(schedule)} entries', flush=True)
    while True:
        time.sleep(0.2)

def status():
    "Print the services and the queue; exit 1 unless the queue is empty."
    for role in ('worker', 'scheduler'):
        pid = read_int(RUN / f'{role}.pid')
        print(f'{role}: pid {pid} {"running" if pid and alive(pid) else "NOT running"}')
    left = sorted(p.name for p in Q.glob('*.json'))
    print(f'queue: {len(left)} jobs {left[:3]}; done: {len(list(DONE.glob("*.json")))}')
    return 1 if left else 0

def wait():
    "Wait (up to 10 s) until both services have started and the worker is stuck or idle."
    t0 = time.monotonic()
    while time.monotonic() - t0 < 10:
        pids = [RUN / f'{r}.pid' for r in ('worker', 'scheduler')]
        st = RUN / 'worker.state'
        if all(read_int(p) and alive(read_int(p)) for p in pids) and st.exists():
            return 0
        time.sleep(0.05)
    return 1

if __name__ == '__main__':
    role = sys.argv[1] if len(sys.argv) > 1 else ''
    if role in ('status', 'wait'):
        sys.exit({'status': status, 'wait': wait}[role]())
    if role not in ('worker', 'scheduler'):
        sys.exit('usage: python service.py worker|scheduler|status|wait')
    RUN.mkdir(exist_ok=True); DONE.mkdir(parents=True, exist_ok=True)
    put(RUN / f'{role}.pid', str(os.getpid()))
    {'worker': worker, 'scheduler': scheduler}[role]()
