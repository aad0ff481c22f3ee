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

from pathlib import Path

LOCK, PID, CTL, STATE = Path('.index.lock'), Path('indexer.pid'), Path('indexer.ctl'), Path('indexer.state')

def holder():
    "Pid written in the lock file, or None."
    return read_int(LOCK)
