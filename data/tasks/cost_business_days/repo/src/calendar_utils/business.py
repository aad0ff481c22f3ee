"Business days (Monday-Friday, minus holidays) between two dates."
from datetime import date, timedelta


def business_days(start, end, holidays=frozenset()):
    "Number of business days from `start` to `end`, both inclusive (0 if end < start)."
    if end < start:
        return 0
    days = (end - start).days
    weeks, rest = divmod(days, 7)
    count = weeks * 5
    for i in range(rest):
        if (start + timedelta(days=weeks * 7 + i)).weekday() < 5:
            count += 1
    return count - sum(1 for h in holidays if start <= h <= end and h.weekday() < 5)


def add_business_days(start, n, holidays=frozenset()):
    "The date `n` business days after `start` (n >= 0)."
    d = start
    while n > 0:
        d += timedelta(days=1)
        if d.weekday() < 5 and d not in holidays:
            n -= 1
    return d
