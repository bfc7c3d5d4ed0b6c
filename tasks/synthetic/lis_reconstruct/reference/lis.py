"""Longest increasing / non-decreasing subsequences."""

from bisect import bisect_left


def lis_length(seq):
    tails = []
    for value in seq:
        i = bisect_left(tails, value)
        if i == len(tails):
            tails.append(value)
        else:
            tails[i] = value
    return len(tails)


def _longest(seq, may_follow):
    seq = list(seq)
    n = len(seq)
    # longest[i] = length of the longest valid subsequence starting at position i
    longest = [1] * n
    for i in range(n - 1, -1, -1):
        for j in range(i + 1, n):
            if may_follow(seq[i], seq[j]) and longest[j] + 1 > longest[i]:
                longest[i] = longest[j] + 1
    result = []
    need = max(longest, default=0)
    last = -1
    while need:
        # The smallest usable value keeps the answer lexicographically smallest; on equal values the
        # earliest position leaves the most room for the rest.
        best = None
        for i in range(last + 1, n):
            if longest[i] == need and (last < 0 or may_follow(seq[last], seq[i])):
                if best is None or seq[i] < seq[best]:
                    best = i
        result.append(seq[best])
        last = best
        need -= 1
    return result


def lis(seq):
    return _longest(seq, lambda x, y: x < y)


def longest_non_decreasing(seq):
    return _longest(seq, lambda x, y: x <= y)
