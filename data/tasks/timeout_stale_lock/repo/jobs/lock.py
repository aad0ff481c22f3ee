"A lock file so that two job runs never overlap; stale locks of crashed runs are broken."
import json
import os
import time
from pathlib import Path

LOCK = Path("var/run/jobs.lock")
STALE_AFTER = 3600  # seconds: no run takes longer than an hour


class LockTimeout(Exception):
    "The lock is held by a live run and `wait` ran out."


def is_stale(info, now=None):
    "True if the lock `info` ({pid, host, started}) is older than STALE_AFTER seconds."
    now = time.time() if now is None else now
    return info["started"] - now > STALE_AFTER


def acquire(path=LOCK, wait=None, poll=0.2):
    "Create the lock file at `path`, breaking a stale lock; wait up to `wait` seconds (None: forever) for a live one."
    path = Path(path)
    deadline = None if wait is None else time.monotonic() + wait
    while True:
        try:
            fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            info = json.loads(path.read_text())
            if is_stale(info):
                path.unlink()
                continue
            if deadline is not None and time.monotonic() > deadline:
                raise LockTimeout(f"{path} is held by pid {info['pid']} on {info['host']}")
            time.sleep(poll)
            continue
        with os.fdopen(fd, "w") as f:
            json.dump({"pid": os.getpid(), "host": os.uname().nodename, "started": time.time()}, f)
        return path


def release(path=LOCK):
    "Remove the lock file."
    Path(path).unlink(missing_ok=True)
