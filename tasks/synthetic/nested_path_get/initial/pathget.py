"""Reading values out of nested dicts and lists by path strings like "a.b[0].c"."""

import re

_KEY = re.compile(r"[^.\[\]]+")
_INDEX = re.compile(r"\[(\d+)\]")


def _parse(path):
    steps = []
    pos = 0
    while pos < len(path):
        index = _INDEX.match(path, pos)
        key = None if index else _KEY.match(path, pos)
        if index:
            steps.append(int(index.group(1)))
            pos = index.end()
        elif key:
            steps.append(key.group(0))
            pos = key.end()
        else:
            raise ValueError(f"malformed path {path!r} at {pos}")
        if pos < len(path) and path[pos] == ".":
            pos += 1
            if not _KEY.match(path, pos):
                raise ValueError(f"malformed path {path!r}: '.' must be followed by a key")
        elif pos < len(path) and path[pos] != "[":
            raise ValueError(f"malformed path {path!r} at {pos}")
    return steps


def get_path(obj, path, default=None):
    current = obj
    for step in _parse(path):
        try:
            current = current[step]
        except (KeyError, IndexError, TypeError):
            return default
    return current


def has_path(obj, path):
    return get_path(obj, path) is not None
