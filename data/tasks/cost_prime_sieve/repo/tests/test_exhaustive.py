"Slow: the sieve against trial division for every n up to LIMIT."
import bisect

import pytest

from numtheory.primes import sieve

LIMIT = 7000
CHUNKS = 70


def is_prime(x):
    if x < 2:
        return False
    d = 2
    while d * d <= x:
        if x % d == 0:
            return False
        d += 1
    return True


PRIMES = [x for x in range(LIMIT + 1) if is_prime(x)]


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_sieve_matches_trial_division(chunk):
    size = LIMIT // CHUNKS
    for n in range(chunk * size, (chunk + 1) * size + 1):
        expected = PRIMES[:bisect.bisect_right(PRIMES, n)]
        assert sieve(n) == expected, f"sieve({n})"
