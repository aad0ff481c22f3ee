from datetime import date

from calendar_utils.business import add_business_days, business_days

MON, FRI, SUN = date(2024, 3, 4), date(2024, 3, 8), date(2024, 3, 10)


def test_one_week():
    assert business_days(MON, FRI) == 5


def test_single_day():
    assert business_days(MON, MON) == 1
    assert business_days(SUN, SUN) == 0


def test_end_before_start():
    assert business_days(FRI, MON) == 0


def test_holidays():
    assert business_days(MON, FRI, holidays={date(2024, 3, 6)}) == 4


def test_add_business_days():
    assert add_business_days(FRI, 1) == date(2024, 3, 11)
