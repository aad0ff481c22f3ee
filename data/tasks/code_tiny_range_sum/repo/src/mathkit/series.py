"Sums of the first n whole numbers."


def sum_to(n):
    "1 + 2 + ... + n, `n` included (0 when n < 1)."
    total = 0
    for i in range(1, n):
        total += i
    return total
