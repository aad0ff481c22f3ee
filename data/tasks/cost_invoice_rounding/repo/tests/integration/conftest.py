import time

import pytest


class FakeLedger:
    "In-memory ledger with the production service's request latency."
    latency = 0.01

    def __init__(self):
        self.rows = {}

    def post(self, batch):
        time.sleep(self.latency)
        for row in batch:
            assert row["id"] not in self.rows, f"duplicate invoice {row['id']}"
            self.rows[row["id"]] = row["cents"]

    def balance(self):
        time.sleep(self.latency)
        return sum(self.rows.values())


@pytest.fixture
def ledger():
    return FakeLedger()
