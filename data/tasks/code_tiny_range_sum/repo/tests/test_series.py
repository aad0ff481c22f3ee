from mathkit.series import sum_to


def test_sum_to_4():
    got = sum_to(4)
    assert got == 10, f"sum_to(4) = 1 + 2 + 3 + 4: expected 10, got {got}"


def test_sum_to_1():
    got = sum_to(1)
    assert got == 1, f"sum_to(1): expected 1, got {got}"


def test_sum_to_0():
    got = sum_to(0)
    assert got == 0, f"sum_to(0): expected 0, got {got}"
