"Tax rates and prices."
from shop.models import Item

RATES = {"general": 0.20, "food": 0.05, "books": 0.0}


def price_with_tax(item: Item) -> float:
    "Gross price of `item`, rounded to cents."
    return round(item.net * (1 + RATES[item.category]), 2)


def cart_total(items: list[Item]) -> float:
    "Sum of the gross prices of `items`."
    return round(sum(price_with_tax(i) for i in items), 2)
