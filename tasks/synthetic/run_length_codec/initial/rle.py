"""Run-length encoding of strings: "aaab" <-> "3a1b"."""

DIGITS = "0123456789"


def encode(text):
    if any(ch in DIGITS for ch in text):
        raise ValueError("digits cannot be run-length encoded")
    parts = []
    previous = None
    count = 0
    for ch in text:
        if ch == previous:
            count += 1
        else:
            if previous is not None:
                parts.append(f"{count}{previous}")
            previous = ch
            count = 1
    return "".join(parts)


def decode(data):
    parts = []
    i = 0
    while i < len(data):
        count = int(data[i])
        parts.append(data[i + 1] * count)
        i += 2
    return "".join(parts)
