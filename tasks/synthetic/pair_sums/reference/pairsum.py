"""Pairs of list elements that add up to a target."""

from collections import Counter


def pairs_with_sum(nums, target):
    counts = Counter(nums)
    pairs = set()
    for a in counts:
        b = target - a
        if a > b or b not in counts:
            continue
        if a == b and counts[a] < 2:
            continue
        pairs.add((a, b))
    return sorted(pairs)


def count_pairs_with_sum(nums, target):
    seen = Counter()
    total = 0
    for value in nums:
        total += seen[target - value]
        seen[value] += 1
    return total
