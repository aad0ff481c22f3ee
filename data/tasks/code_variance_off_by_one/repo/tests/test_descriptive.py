import math
import statistics

import pytest

from stats.descriptive import mean, std, variance, zscores

DATA = [2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]


def test_mean():
    assert mean(DATA) == 5.0
    assert mean([3]) == 3


def test_mean_empty():
    with pytest.raises(ValueError):
        mean([])


def test_variance():
    assert variance([1, 2, 3, 4]) == pytest.approx(5 / 3)
    assert variance(DATA) == pytest.approx(statistics.variance(DATA))


def test_variance_needs_two_values():
    with pytest.raises(ValueError):
        variance([1.0])


def test_std():
    assert std(DATA) == pytest.approx(statistics.stdev(DATA))


def test_zscores():
    z = zscores([1.0, 2.0, 3.0])
    assert z == pytest.approx([-1.0, 0.0, 1.0])
    assert math.fsum(zscores(DATA)) == pytest.approx(0.0, abs=1e-12)
