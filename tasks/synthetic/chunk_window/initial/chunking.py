"""Fixed-size chunks and sliding windows over sequences."""


def chunk(seq, size):
    if size < 1:
        raise ValueError("size must be at least 1")
    items = list(seq)
    return [items[i:i + size] for i in range(0, len(items) - size + 1, size)]


def windows(seq, size, step=1):
    if size < 1:
        raise ValueError("size must be at least 1")
    items = list(seq)
    return [tuple(items[i:i + size]) for i in range(0, len(items) - size, step)]
