"What the shop sells."
from dataclasses import dataclass

from shop.pricing import price_with_tax


@dataclass(frozen=True)
class Item:
    "An item with its net price and tax category."
    name: str
    net: float
    category: str = "general"

    def gross(self) -> float:
        "Price including tax."
        return price_with_tax(self)
