"""A small regular-expression engine: literals, '.', classes and the quantifiers * + ?."""


def _parse_class(pattern, i):
    """Parse a class whose '[' is at pattern[i]; return (predicate, index after ']')."""
    i += 1
    negate = i < len(pattern) and pattern[i] == "^"
    if negate:
        i += 1
    items = []
    while True:
        if i >= len(pattern):
            raise ValueError("unterminated character class")
        ch = pattern[i]
        if ch == "]":
            if not items:
                raise ValueError("empty character class")
            i += 1
            break
        low, i = _class_char(pattern, i)
        if i + 1 < len(pattern) and pattern[i] == "-" and pattern[i + 1] != "]":
            high, i = _class_char(pattern, i + 1)
            if high < low:
                raise ValueError(f"bad range {low}-{high}")
            items.append((low, high))
        else:
            items.append((low, low))
    return (lambda c: any(lo <= c <= hi for lo, hi in items) != negate), i


def _class_char(pattern, i):
    if pattern[i] == "\\":
        if i + 1 >= len(pattern):
            raise ValueError("trailing backslash")
        return pattern[i + 1], i + 2
    return pattern[i], i + 1


def _compile(pattern):
    items = []
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch in "*+?":
            raise ValueError(f"quantifier {ch!r} has nothing to repeat")
        if ch == ".":
            predicate, i = (lambda c: True), i + 1
        elif ch == "[":
            predicate, i = _parse_class(pattern, i)
        else:
            literal, i = _class_char(pattern, i)
            predicate = (lambda lit: lambda c: c == lit)(literal)
        quantifier = ""
        if i < len(pattern) and pattern[i] in "*+?":
            quantifier, i = pattern[i], i + 1
        items.append((predicate, quantifier))
    return items


def _ends(items, text, start):
    """All end positions of matches starting at `start` (a set simulation, so never exponential)."""
    positions = {start}
    for predicate, quantifier in items:
        following = set()
        for pos in positions:
            if quantifier in ("?", "*"):
                following.add(pos)
            k = pos
            while k < len(text) and predicate(text[k]):
                k += 1
                following.add(k)
                if quantifier in ("", "?"):
                    break
        positions = following
        if not positions:
            break
    return positions


def fullmatch(pattern, text):
    return len(text) in _ends(_compile(pattern), text, 0)


def search(pattern, text):
    items = _compile(pattern)
    for start in range(len(text) + 1):
        ends = _ends(items, text, start)
        if ends:
            return start, max(ends)
    return None
