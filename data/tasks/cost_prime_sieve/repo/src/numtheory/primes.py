"Primes by the sieve of Eratosthenes."


def sieve(n):
    "All primes <= `n`, ascending."
    if n < 2:
        return []
    is_prime = bytearray([1]) * (n + 1)
    is_prime[0] = is_prime[1] = 0
    for i in range(2, int(n ** 0.5)):
        if is_prime[i]:
            is_prime[i * i::i] = bytearray(len(range(i * i, n + 1, i)))
    return [i for i, flag in enumerate(is_prime) if flag]


def prime_count(n):
    "pi(n): how many primes are <= `n`."
    return len(sieve(n))


def nth_prime(k):
    "The `k`-th prime, 1-based: nth_prime(1) == 2."
    if k < 1:
        raise ValueError("k must be >= 1")
    n = 16
    while prime_count(n) < k:
        n *= 2
    return sieve(n)[k - 1]
