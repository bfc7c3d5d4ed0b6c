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


def _search(seq, x):
    lo, hi = 0, len(seq) - 1
    while lo <= hi:
        mid = (lo + hi) // 2
        if seq[mid] == x:
            return mid
        if seq[mid] < x:
            lo = mid + 1
        else:
            hi = mid - 1
    return -1


def find_first(seq, x):
    return _search(seq, x)


def find_last(seq, x):
    return _search(seq, x)


def count(seq, x):
    first = find_first(seq, x)
    if first == -1:
        return 0
    return find_last(seq, x) - first + 1
