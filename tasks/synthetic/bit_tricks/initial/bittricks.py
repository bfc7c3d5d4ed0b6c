"""Small bit-manipulation helpers."""


def popcount(n):
    if n < 0:
        raise ValueError("n must not be negative")
    return bin(n).count("1")


def is_power_of_two(n):
    return n > 0 and n & (n - 1) == 0


def next_power_of_two(n):
    if n <= 1:
        return 1
    return 1 << n.bit_length()


def reverse_bits(n, width):
    if n < 0 or width < 1:
        raise ValueError(f"{n} does not fit in {width} bits")
    result = 0
    for _ in range(width):
        result = (result << 1) | (n & 1)
        n >>= 1
    return result
