from stats.report import summary


def test_summary():
    assert summary([1, 2, 3, 4]) == {"n": 4, "mean": 2.5, "variance": 1.667}
    assert summary([2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]) == {"n": 8, "mean": 5.0, "variance": 4.571}
