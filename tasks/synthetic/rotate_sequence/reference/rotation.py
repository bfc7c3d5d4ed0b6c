"""Rotation of sequences."""


def rotate(seq, k):
    items = list(seq)
    if not items:
        return []
    k %= len(items)
    return items[len(items) - k:] + items[:len(items) - k]


def is_rotation(a, b):
    a, b = list(a), list(b)
    if len(a) != len(b):
        return False
    return any(rotate(a, k) == b for k in range(max(len(a), 1)))
