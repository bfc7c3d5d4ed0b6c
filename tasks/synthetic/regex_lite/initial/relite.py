"""A small regular-expression engine: literals, '.', classes and the quantifiers * + ?."""


def _parse_class(pattern, i):
    """Parse a class whose '[' is at pattern[i]; return (predicate, index after ']')."""
    i += 1
    negate = i < len(pattern) and pattern[i] == "^"
    if negate:
        i += 1
    chars = set()
    while True:
        if i >= len(pattern):
            raise ValueError("unterminated character class")
        ch = pattern[i]
        if ch == "]":
            if not chars:
                raise ValueError("empty character class")
            i += 1
            break
        if ch == "\\":
            if i + 1 >= len(pattern):
                raise ValueError("trailing backslash")
            ch = pattern[i + 1]
            i += 1
        chars.add(ch)
        i += 1
    return (lambda c: (c in chars) != negate), i


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
            if ch == "\\":
                if i + 1 >= len(pattern):
                    raise ValueError("trailing backslash")
                ch = pattern[i + 1]
                i += 1
            predicate = (lambda lit: lambda c: c == lit)(ch)
            i += 1
        quantifier = ""
        if i < len(pattern) and pattern[i] in "*+?":
            quantifier, i = pattern[i], i + 1
        items.append((predicate, quantifier))
    return items


def _ends(items, text, start):
    positions = {start}
    for predicate, quantifier in items:
        following = set()
        for pos in positions:
            if quantifier in ("?", "*", "+"):
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
            return start, min(ends)
    return None
