"Retrying calls to a flaky service with exponential backoff."
import time


def backoff(attempt, base=0.05, max_delay=2.0):
    "Seconds to wait before retry number `attempt` (0-based): base * 2**attempt, capped at `max_delay`."
    return min(base * 2 ** attempt, max_delay)


def call_with_retry(fn, retries=3, sleep=time.sleep):
    "Call `fn()`; on a timeout or connection error retry up to `retries` times, then re-raise the last error."
    attempt = 0
    while True:
        try:
            return fn()
        except TimeoutError:
            attempt += 1
            if attempt > retries:
                raise
            sleep(backoff(attempt))
        except ConnectionError:
            # connection refused or reset: the server is probably restarting, just wait and try again
            sleep(backoff(attempt))
