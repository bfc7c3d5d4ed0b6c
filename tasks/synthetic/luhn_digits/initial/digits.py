"""Digit sums and the Luhn checksum."""


def digit_sum(n):
    return sum(int(ch) for ch in str(n))


def digital_root(n):
    if n < 0:
        raise ValueError("n must not be negative")
    while n >= 10:
        n = digit_sum(n)
    return n


def _luhn_total(digits):
    total = 0
    for position, ch in enumerate(digits):
        value = int(ch)
        if position % 2 == 1:
            value *= 2
            if value > 9:
                value -= 9
        total += value
    return total


def luhn_valid(number):
    digits = number.replace(" ", "")
    if len(digits) < 2 or not all(ch in "0123456789" for ch in digits):
        return False
    return _luhn_total(digits) % 10 == 0


def luhn_check_digit(partial):
    for candidate in "0123456789":
        if luhn_valid(partial + candidate):
            return candidate
    raise ValueError(f"no check digit for {partial!r}")
