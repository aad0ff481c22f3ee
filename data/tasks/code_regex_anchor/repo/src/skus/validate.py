"SKU validation. A SKU is three capital letters, a dash and four digits: ABC-1234."
import re

SKU = re.compile(r"[A-Z]{3}-\d{4}")


def is_valid_sku(s):
    "True if `s` is exactly one SKU, nothing before or after it."
    return SKU.match(s) is not None


def parse_order_line(line):
    "'SKU x QTY' -> (sku, qty); raises ValueError on a malformed line."
    sku, sep, qty = line.partition(" x ")
    if not sep or not is_valid_sku(sku) or not qty.isdigit():
        raise ValueError(f"bad order line: {line!r}")
    return sku, int(qty)
