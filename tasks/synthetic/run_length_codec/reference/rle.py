"""Run-length encoding of strings: "aaab" <-> "3a1b"."""

DIGITS = "0123456789"


def encode(text):
    if any(ch in DIGITS for ch in text):
        raise ValueError("digits cannot be run-length encoded")
    parts = []
    i = 0
    while i < len(text):
        j = i
        while j < len(text) and text[j] == text[i]:
            j += 1
        parts.append(f"{j - i}{text[i]}")
        i = j
    return "".join(parts)


def decode(data):
    parts = []
    count = ""
    for ch in data:
        if ch in DIGITS:
            count += ch
            continue
        if not count:
            raise ValueError(f"character {ch!r} has no count")
        n = int(count)
        if n == 0:
            raise ValueError("zero count")
        parts.append(ch * n)
        count = ""
    if count:
        raise ValueError("count without a character at the end")
    return "".join(parts)
