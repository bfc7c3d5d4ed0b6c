"""Palindrome tests and the next palindromic number."""


def is_palindrome(text):
    kept = [ch for ch in text if ch.isalnum()]
    return kept == kept[::-1]


def _mirror(half, length):
    return half + half[: length // 2][::-1]


def next_palindrome(n):
    if n < 0:
        raise ValueError("n must not be negative")
    digits = str(n)
    length = len(digits)
    half = digits[: (length + 1) // 2]
    candidate = int(_mirror(half, length))
    if candidate >= n:
        return candidate
    return int(_mirror(str(int(half) + 1), length))
