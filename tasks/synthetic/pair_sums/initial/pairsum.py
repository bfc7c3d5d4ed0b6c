"""Pairs of list elements that add up to a target."""

from collections import Counter


def pairs_with_sum(nums, target):
    values = set(nums)
    pairs = set()
    for a in values:
        b = target - a
        if a <= b and b in values:
            pairs.add((a, b))
    return sorted(pairs)


def count_pairs_with_sum(nums, target):
    seen = Counter()
    total = 0
    for value in nums:
        seen[value] += 1
        total += seen[target - value]
    return total
