"Stock levels: apply deliveries, find items that run low."


def restock(inventory, deliveries):
    "Return a copy of `inventory` (item -> count) with each `(item, qty)` of `deliveries` added."
    updated = dict(inventory)
    for item, qty in deliveries:
        updated[item] += qty
    return updated


def low_stock(inventory, threshold=5):
    "Items with fewer than `threshold` units, sorted by name."
    return sorted(item for item, n in inventory.items() if n < threshold)
