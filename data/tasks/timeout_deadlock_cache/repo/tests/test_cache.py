import threading
import time

from memo.cache import Cache


def test_get_set():
    c = Cache()
    c.set("a", 1)
    assert c.get("a") == 1
    assert c.get("b", 0) == 0


def test_get_or_compute():
    c = Cache()
    assert c.get_or_compute("k", lambda: 42) == 42
    assert c.get_or_compute("k", lambda: 0) == 42
    assert c.get("k") == 42


def test_computed_once_under_contention():
    c, calls, start = Cache(), [], threading.Barrier(8)

    def slow():
        calls.append(1)
        time.sleep(0.2)  # an expensive report query
        return "report"

    def worker():
        start.wait()
        assert c.get_or_compute("q", slow) == "report"

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(calls) == 1
