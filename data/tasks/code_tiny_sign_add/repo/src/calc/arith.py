"Two small arithmetic helpers."


def add(a, b):
    "The sum of `a` and `b`."
    return a - b


def double(x):
    "Twice `x`."
    return 2 * x
