"""Palindrome tests and the next palindromic number."""


def is_palindrome(text):
    kept = [ch.lower() for ch in text if ch.isalnum()]
    return kept == kept[::-1]


def _mirror(half, length):
    return half + half[: length // 2][::-1]


def next_palindrome(n):
    if n < 0:
        raise ValueError("n must not be negative")
    target = n + 1
    digits = str(target)
    length = len(digits)
    half = digits[: (length + 1) // 2]
    candidate = int(_mirror(half, length))
    if candidate >= target:
        return candidate
    # Mirroring the left half was too small: bump the left half (a half of nines cannot be too small).
    return int(_mirror(str(int(half) + 1), length))
