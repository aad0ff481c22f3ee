from inventory.stock import low_stock, restock

STOCK = {"bolt": 40, "nut": 3, "washer": 12}


def test_restock_known_items():
    assert restock(STOCK, [("nut", 10), ("bolt", 5)]) == {"bolt": 45, "nut": 13, "washer": 12}


def test_restock_new_item():
    # a delivery may bring an item the warehouse has never stocked
    assert restock(STOCK, [("widget", 7), ("widget", 1)]) == {**STOCK, "widget": 8}


def test_restock_does_not_mutate():
    before = dict(STOCK)
    restock(STOCK, [("nut", 1)])
    assert STOCK == before


def test_low_stock():
    assert low_stock(STOCK) == ["nut"]
    assert low_stock(restock(STOCK, [("gear", 2)]), threshold=13) == ["gear", "nut", "washer"]
