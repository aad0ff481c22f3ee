"Cabin bag rules at the check-in desk."

LIMIT_KG = 8


def fits_cabin(weight_kg):
    "True when a bag of `weight_kg` may go in the cabin: up to `LIMIT_KG` kg, the limit itself included."
    return weight_kg < LIMIT_KG
