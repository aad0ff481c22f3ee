"""Tests for the Terminal-Bench-style task log-level-period-summary (expected counts computed when the logs were made)."""
import csv
from pathlib import Path

OUT = Path('/app/summary.csv')
PERIODS = ['today', 'last_7_days', 'last_30_days', 'month_to_date', 'total']
LEVELS = ['ERROR', 'WARN', 'INFO']
EXPECTED = {
    ('today', 'ERROR'): 7, ('today', 'WARN'): 4, ('today', 'INFO'): 13,
    ('last_7_days', 'ERROR'): 21, ('last_7_days', 'WARN'): 21, ('last_7_days', 'INFO'): 68,
    ('last_30_days', 'ERROR'): 74, ('last_30_days', 'WARN'): 111, ('last_30_days', 'INFO'): 258,
    ('month_to_date', 'ERROR'): 42, ('month_to_date', 'WARN'): 49, ('month_to_date', 'INFO'): 150,
    ('total', 'ERROR'): 111, ('total', 'WARN'): 165, ('total', 'INFO'): 417,
}

def rows():
    assert OUT.is_file(), 'missing /app/summary.csv'
    with OUT.open(newline='') as f:
        return [r for r in csv.reader(f) if r]

def counts():
    return {(r[0], r[1]): int(r[2]) for r in rows()[1:]}

def test_header_and_row_order():
    r = rows()
    assert r[0] == ['period', 'level', 'count']
    assert [tuple(x[:2]) for x in r[1:]] == [(p, l) for p in PERIODS for l in LEVELS]
    assert all(len(x) == 3 and x[2].strip().isdigit() for x in r[1:])

def test_today_counts():
    c = counts()
    for l in LEVELS:
        assert c.get(('today', l)) == EXPECTED['today', l], l

def test_window_counts():
    c = counts()
    for p in ('last_7_days', 'last_30_days', 'month_to_date'):
        for l in LEVELS:
            assert c.get((p, l)) == EXPECTED[p, l], (p, l)

def test_total_counts():
    c = counts()
    for l in LEVELS:
        assert c.get(('total', l)) == EXPECTED['total', l], l
