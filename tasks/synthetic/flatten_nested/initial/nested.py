"""Flattening of nested lists and tuples."""


def flatten(obj, depth=None):
    if not isinstance(obj, (list, tuple)):
        raise TypeError("flatten expects a list or a tuple")
    if depth is not None and depth < 0:
        raise ValueError("depth must not be negative")
    out = []
    for item in obj:
        if isinstance(item, list) and (depth is None or depth > 1):
            out.extend(flatten(item, None if depth is None else depth - 1))
        else:
            out.append(item)
    return out
