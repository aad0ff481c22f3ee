"A dict cache that several worker threads share."
import threading


class Cache:
    "Thread-safe key -> value cache; `get_or_compute` computes each missing key once."

    def __init__(self):
        self._lock = threading.Lock()
        self._data = {}

    def get(self, key, default=None):
        with self._lock:
            return self._data.get(key, default)

    def set(self, key, value):
        with self._lock:
            self._data[key] = value

    def get_or_compute(self, key, compute):
        "The cached value of `key`, calling `compute()` (once, even under contention) if it is missing."
        with self._lock:
            if key in self._data:
                return self._data[key]
            value = compute()
            self.set(key, value)
            return value
