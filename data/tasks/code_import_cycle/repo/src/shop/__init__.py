"A tiny shop: items and prices with tax."
from shop.models import Item
from shop.pricing import cart_total, price_with_tax

__all__ = ["Item", "cart_total", "price_with_tax"]
