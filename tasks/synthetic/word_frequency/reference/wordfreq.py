"""Word splitting and frequency ranking."""

import re
from collections import Counter

_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)*")


def words(text):
    return _WORD.findall(text.lower())


def top_words(text, n):
    if n <= 0:
        return []
    counts = Counter(words(text))
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return ranked[:n]
