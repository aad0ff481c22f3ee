import pytest

from netutil.retry import backoff, call_with_retry


class Flaky:
    "Raises `error` for the first `failures` calls, then returns 'ok'."

    def __init__(self, failures, error):
        self.failures, self.error, self.calls = failures, error, 0

    def __call__(self):
        self.calls += 1
        if self.calls <= self.failures:
            raise self.error("service unavailable")
        return "ok"


def test_backoff():
    assert [backoff(a) for a in range(3)] == [0.05, 0.1, 0.2]
    assert backoff(10) == 2.0


def test_recovers_after_timeouts():
    f = Flaky(2, TimeoutError)
    assert call_with_retry(f) == "ok"
    assert f.calls == 3


def test_recovers_after_refused_connection():
    f = Flaky(2, ConnectionRefusedError)
    assert call_with_retry(f) == "ok"


def test_gives_up_after_timeouts():
    f = Flaky(10**6, TimeoutError)
    with pytest.raises(TimeoutError):
        call_with_retry(f, retries=3)
    assert f.calls == 4


def test_gives_up_when_connection_stays_refused():
    f = Flaky(10**6, ConnectionRefusedError)
    with pytest.raises(ConnectionRefusedError):
        call_with_retry(f, retries=3)
    assert f.calls == 4
