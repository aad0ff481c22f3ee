from shop import Item, cart_total, price_with_tax


def test_gross():
    assert Item("tea", 4.0, "food").gross() == 4.2
    assert Item("pen", 2.5).gross() == 3.0


def test_books_are_untaxed():
    assert price_with_tax(Item("novel", 9.99, "books")) == 9.99


def test_cart_total():
    assert cart_total([Item("tea", 4.0, "food"), Item("pen", 2.5), Item("novel", 9.99, "books")]) == 17.19
