import pytest

from series.windows import moving_average, sliding_windows


def test_windows():
    assert sliding_windows([1, 2, 3, 4], 2) == [[1, 2], [2, 3], [3, 4]]


def test_window_as_long_as_series():
    assert sliding_windows([1, 2, 3], 3) == [[1, 2, 3]]


def test_window_longer_than_series():
    assert sliding_windows([1, 2], 3) == []


def test_bad_k():
    with pytest.raises(ValueError):
        sliding_windows([1, 2], 0)


def test_moving_average():
    xs = [1.0, 2.0, 3.0, 4.0, 5.0]
    assert moving_average(xs, 2) == [1.5, 2.5, 3.5, 4.5]
    assert len(moving_average(xs, 5)) == 1
