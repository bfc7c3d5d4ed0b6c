"""Caesar cipher over the ASCII alphabet."""


def _shift_char(ch, k):
    if ch.isalpha():
        return chr((ord(ch) - ord("a") + k) % 26 + ord("a"))
    return ch


def shift(text, k):
    return "".join(_shift_char(ch, k) for ch in text)


def unshift(text, k):
    return shift(text, -k)


def rot13(text):
    return shift(text, 13)
