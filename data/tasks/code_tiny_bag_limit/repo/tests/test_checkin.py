from luggage.checkin import fits_cabin


def test_light_bag():
    got = fits_cabin(5)
    assert got is True, f"fits_cabin(5): expected True, got {got}"


def test_bag_at_the_limit():
    got = fits_cabin(8)
    assert got is True, f"fits_cabin(8), exactly the 8 kg limit: expected True, got {got}"


def test_heavy_bag():
    got = fits_cabin(9)
    assert got is False, f"fits_cabin(9): expected False, got {got}"
