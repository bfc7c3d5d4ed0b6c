"""Word splitting and frequency ranking."""

import re
from collections import Counter

_WORD = re.compile(r"[^\W\d_']+(?:'?[^\W\d_']+)*'?")


def words(text):
    return [word.strip("'") for word in _WORD.findall(text)]


def top_words(text, n):
    if n <= 0:
        return []
    return Counter(words(text)).most_common(n)
