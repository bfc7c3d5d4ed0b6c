"""Longest increasing / non-decreasing subsequences."""

from bisect import bisect_left


def _tails(seq, search):
    tails = []
    for value in seq:
        i = search(tails, value)
        if i == len(tails):
            tails.append(value)
        else:
            tails[i] = value
    return tails


def lis_length(seq):
    return len(_tails(seq, bisect_left))


def lis(seq):
    return _tails(seq, bisect_left)


def longest_non_decreasing(seq):
    return _tails(seq, bisect_left)
