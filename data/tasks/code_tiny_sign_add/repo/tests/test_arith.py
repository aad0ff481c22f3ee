from calc.arith import add, double


def test_add():
    got = add(2, 3)
    assert got == 5, f"add(2, 3): expected 5, got {got}"


def test_double():
    got = double(4)
    assert got == 8, f"double(4): expected 8, got {got}"
