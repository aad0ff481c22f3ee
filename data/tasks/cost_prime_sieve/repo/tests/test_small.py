import pytest

from numtheory.primes import nth_prime, prime_count, sieve


def test_small_sieve():
    assert sieve(1) == []
    assert sieve(2) == [2]
    assert sieve(30) == [2, 3, 5, 7, 11, 13, 17, 19, 23, 29]


def test_squares_of_primes_are_composite():
    assert 25 not in sieve(25)
    assert 49 not in sieve(50)


def test_prime_count():
    assert prime_count(100) == 25


def test_nth_prime():
    assert nth_prime(1) == 2
    assert nth_prime(10) == 29
    with pytest.raises(ValueError):
        nth_prime(0)
