"""Greedy line filling and full justification."""


def split_into_lines(words, width):
    if width < 1:
        raise ValueError("width must be at least 1")
    lines = []
    current = []
    length = 0
    for word in words:
        if len(word) > width:
            raise ValueError(f"word longer than the line: {word!r}")
        if current and length + 1 + len(word) <= width:
            current.append(word)
            length += 1 + len(word)
        else:
            if current:
                lines.append(current)
            current, length = [word], len(word)
    if current:
        lines.append(current)
    return lines


def _justify_line(words, width):
    if len(words) == 1:
        return words[0].ljust(width)
    gaps = len(words) - 1
    spaces = width - sum(len(w) for w in words)
    base, extra = divmod(spaces, gaps)
    parts = []
    for i, word in enumerate(words[:-1]):
        parts.append(word + " " * (base + (1 if i < extra else 0)))
    parts.append(words[-1])
    return "".join(parts)


def justify(text, width):
    lines = split_into_lines(text.split(), width)
    if not lines:
        return []
    body = [_justify_line(words, width) for words in lines[:-1]]
    return body + [" ".join(lines[-1])]
