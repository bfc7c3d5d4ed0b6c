import pytest

import primes


def test_primes_up_to_composite_bound():
    assert primes.primes_up_to(10) == [2, 3, 5, 7]


def test_primes_up_to_includes_prime_bound():
    assert primes.primes_up_to(13) == [2, 3, 5, 7, 11, 13]
    assert primes.primes_up_to(2) == [2]


def test_primes_up_to_small_bounds():
    assert primes.primes_up_to(1) == []
    assert primes.primes_up_to(-5) == []


def test_is_prime():
    assert [n for n in range(-2, 30) if primes.is_prime(n)] == [2, 3, 5, 7, 11, 13, 17, 19, 23, 29]


def test_factor_powers_of_two():
    assert primes.prime_factors(8) == [2, 2, 2]


def test_factors_with_leftover_prime():
    assert primes.prime_factors(12) == [2, 2, 3]
    assert primes.prime_factors(97) == [97]


def test_large_prime_factor():
    assert primes.prime_factors(2 * 1_000_003) == [2, 1_000_003]


def test_factor_input_rejected():
    with pytest.raises(ValueError):
        primes.prime_factors(1)
