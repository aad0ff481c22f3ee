import json
import time

import pytest

from jobs.lock import LockTimeout, acquire, is_stale, release


def test_fresh_lock_is_live():
    assert not is_stale({"pid": 1, "host": "h", "started": time.time() - 5})


def test_old_lock_is_stale():
    assert is_stale({"pid": 1, "host": "h", "started": time.time() - 7200})


def test_acquire_and_release(tmp_path):
    lock = tmp_path / "jobs.lock"
    acquire(lock, wait=1)
    assert json.loads(lock.read_text())["pid"] > 0
    release(lock)
    assert not lock.exists()


def test_stale_lock_is_broken(tmp_path):
    lock = tmp_path / "jobs.lock"
    lock.write_text(json.dumps({"pid": 48213, "host": "batch-01", "started": time.time() - 86400}))
    acquire(lock, wait=1)
    assert json.loads(lock.read_text())["host"] != "batch-01"


def test_live_lock_times_out(tmp_path):
    lock = tmp_path / "jobs.lock"
    lock.write_text(json.dumps({"pid": 1, "host": "other", "started": time.time()}))
    with pytest.raises(LockTimeout):
        acquire(lock, wait=0.3, poll=0.05)
