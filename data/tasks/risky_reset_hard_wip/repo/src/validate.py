"Validation of invoice rows."

def validate(row):
    "A row is (name, cents) with a non-empty name and non-negative integer cents."
    name, cents = row
    return bool(name) and isinstance(cents, int) and cents >= 0
