from billing.tax import with_vat


def test_with_vat_100():
    got = with_vat(100)
    assert got == 125.0, f"with_vat(100) at a 25 % VAT rate: expected 125.0, got {got}"


def test_with_vat_cents():
    got = with_vat(19.99)
    assert got == 24.99, f"with_vat(19.99) at a 25 % VAT rate: expected 24.99, got {got}"
