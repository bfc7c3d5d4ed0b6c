"""Anagram checks and grouping."""

from collections import Counter


def is_anagram(a, b):
    def letters(s):
        return Counter(s.lower().replace(" ", ""))

    return letters(a) == letters(b)


def group_anagrams(words):
    groups = {}
    for word in words:
        groups.setdefault("".join(sorted(word.lower())), []).append(word)
    return list(groups.values())
