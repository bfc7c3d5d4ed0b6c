"""Rotation of sequences."""


def rotate(seq, k):
    items = list(seq)
    k %= len(items)
    return items[k:] + items[:k]


def is_rotation(a, b):
    a, b = list(a), list(b)
    if len(a) != len(b):
        return False
    if not a:
        return True
    return any(rotate(a, k) == b for k in range(len(a)))
