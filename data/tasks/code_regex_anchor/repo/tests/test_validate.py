import pytest

from skus.validate import is_valid_sku, parse_order_line


@pytest.mark.parametrize("s", ["ABC-1234", "XYZ-0000"])
def test_valid(s):
    assert is_valid_sku(s)


@pytest.mark.parametrize("s", ["ABC-12345", "ABC-1234x", "xABC-1234", " ABC-1234", "abc-1234", "ABC-1234\n", ""])
def test_invalid(s):
    assert not is_valid_sku(s)


def test_parse_order_line():
    assert parse_order_line("ABC-1234 x 3") == ("ABC-1234", 3)
    with pytest.raises(ValueError):
        parse_order_line("ABC-12345 x 3")
