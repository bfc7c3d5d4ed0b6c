"""Cardinal and ordinal English number words."""

_ONES = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
    "sixteen seventeen eighteen nineteen"
).split()
_TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()
_SCALE_NAMES = ("", "thousand", "million", "billion")
_IRREGULAR = {"one": "first", "two": "second", "three": "third", "five": "fifth", "eight": "eighth",
              "nine": "ninth"}


def _below_thousand(n):
    words = []
    hundreds, rest = divmod(n, 100)
    if hundreds:
        words.append(f"{_ONES[hundreds]} hundred")
    if rest >= 20:
        tens, ones = divmod(rest, 10)
        words.append(_TENS[tens] + (f"-{_ONES[ones]}" if ones else ""))
    elif rest:
        words.append(_ONES[rest])
    return " ".join(words)


def to_words(n):
    if not -10**12 < n < 10**12:
        raise ValueError(f"{n} is out of range")
    if n < 0:
        return "minus " + to_words(-n)
    groups = []
    while n:
        n, group = divmod(n, 1000)
        groups.append(group)
    words = []
    for index in reversed(range(len(groups))):
        text = _below_thousand(groups[index])
        if index:
            text += " " + _SCALE_NAMES[index]
        words.append(text)
    return " ".join(words)


def _ordinal(word):
    if word in _IRREGULAR:
        return _IRREGULAR[word]
    if word.endswith("y"):
        return word[:-1] + "ieth"
    return word + "th"


def ordinal_words(n):
    if n < 1:
        raise ValueError("ordinals start at 1")
    head, _, last = to_words(n).rpartition(" ")
    stem, hyphen, unit = last.rpartition("-")
    last = stem + hyphen + _ordinal(unit)
    return f"{head} {last}" if head else last
