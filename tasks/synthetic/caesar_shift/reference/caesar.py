"""Caesar cipher over the ASCII alphabet."""

import string


def _shift_char(ch, k):
    for alphabet in (string.ascii_lowercase, string.ascii_uppercase):
        if ch in alphabet:
            return alphabet[(alphabet.index(ch) + k) % 26]
    return ch


def shift(text, k):
    return "".join(_shift_char(ch, k) for ch in text)


def unshift(text, k):
    return shift(text, -k)


def rot13(text):
    return shift(text, 13)
