import pytest

from billing.money import invoice_total, to_cents


@pytest.mark.parametrize("amount,cents", [("12.34", 1234), ("0.125", 13), ("1.005", 101), ("2.675", 268),
                                          ("0.004", 0), ("19.995", 2000), ("7", 700)])
def test_to_cents_rounds_half_up(amount, cents):
    assert to_cents(amount) == cents


def test_invoice_total():
    assert invoice_total([("0.125", 2), ("1.005", 1)]) == 127
