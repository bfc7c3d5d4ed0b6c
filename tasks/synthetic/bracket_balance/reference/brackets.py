"""Checking that (), [] and {} are properly nested."""

_PAIRS = {")": "(", "]": "[", "}": "{"}


def first_error(text):
    stack = []
    for index, ch in enumerate(text):
        if ch in "([{":
            stack.append((ch, index))
        elif ch in _PAIRS:
            if not stack or stack[-1][0] != _PAIRS[ch]:
                return index
            stack.pop()
    if stack:
        return stack[0][1]
    return None


def is_balanced(text):
    return first_error(text) is None
