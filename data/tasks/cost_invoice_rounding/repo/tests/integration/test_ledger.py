"Slow: every test posts a month of invoices through the latency-emulating FakeLedger."
import random
from decimal import ROUND_HALF_UP, Decimal

import pytest

from billing.ledger import post_invoices


def month(seed, n=300):
    "n invoices of 1-3 lines with prices of up to three decimals (the supplier feed has mills)."
    rng = random.Random(seed)
    return [(f"INV-{seed}-{i}", [(f"{rng.randint(0, 50000) / 1000:.3f}", rng.randint(1, 4)) for _ in range(rng.randint(1, 3))])
            for i in range(n)]


def expected_balance(invoices):
    cents = lambda a: int((Decimal(a) * 100).quantize(Decimal("1"), rounding=ROUND_HALF_UP))
    return sum(cents(a) * q for _, lines in invoices for a, q in lines)


@pytest.mark.parametrize("seed", range(8))
def test_month_balances(ledger, seed):
    invoices = month(seed)
    assert post_invoices(ledger, invoices) == expected_balance(invoices)
    assert len(ledger.rows) == len(invoices)
