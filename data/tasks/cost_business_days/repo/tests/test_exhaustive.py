"Slow: business_days against a day-by-day count for many date pairs."
import random
from datetime import date, timedelta

import pytest

from calendar_utils.business import business_days

START = date(2023, 1, 1)
HOLIDAYS = {date(2023, 12, 25), date(2024, 1, 1), date(2024, 5, 1), date(2024, 12, 25)}


def naive(a, b, holidays):
    n, d = 0, a
    while d <= b:
        n += d.weekday() < 5 and d not in holidays
        d += timedelta(days=1)
    return n


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(40))
def test_against_day_by_day_count(seed):
    rng = random.Random(seed)
    for _ in range(250):
        a = START + timedelta(days=rng.randint(0, 730))
        b = a + timedelta(days=rng.randint(0, 400))
        assert business_days(a, b, HOLIDAYS) == naive(a, b, HOLIDAYS), (a, b)
