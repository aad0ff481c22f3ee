"Money amounts: decimal strings from the exports to integer cents."


def to_cents(amount):
    "'12.345' -> 1235: the amount in cents, rounded half up (the ledger's rule)."
    return int(round(float(amount) * 100))


def invoice_total(lines):
    "Total in cents of `(amount, quantity)` lines: each line is rounded before summing."
    return sum(to_cents(amount) * qty for amount, qty in lines)
