"""Binary searches over sorted sequences that may hold duplicates."""


def lower_bound(seq, x):
    lo, hi = 0, len(seq)
    while lo < hi:
        mid = (lo + hi) // 2
        if seq[mid] < x:
            lo = mid + 1
        else:
            hi = mid
    return lo


def _upper_bound(seq, x):
    lo, hi = 0, len(seq)
    while lo < hi:
        mid = (lo + hi) // 2
        if seq[mid] <= x:
            lo = mid + 1
        else:
            hi = mid
    return lo


def find_first(seq, x):
    i = lower_bound(seq, x)
    return i if i < len(seq) and seq[i] == x else -1


def find_last(seq, x):
    i = _upper_bound(seq, x) - 1
    return i if i >= 0 and seq[i] == x else -1


def count(seq, x):
    return _upper_bound(seq, x) - lower_bound(seq, x)
