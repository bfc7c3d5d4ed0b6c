"""Reading values out of nested dicts and lists by path strings like "a.b[0].c"."""

import re
from collections.abc import Mapping, Sequence

_KEY = re.compile(r"[^.\[\]]+")
_INDEX = re.compile(r"\[(-?\d+)\]")
_MISSING = object()


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


def _step(current, step):
    if isinstance(step, str):
        if isinstance(current, Mapping) and step in current:
            return current[step]
        return _MISSING
    if isinstance(current, Sequence) and not isinstance(current, (str, bytes)):
        if -len(current) <= step < len(current):
            return current[step]
    return _MISSING


def _follow(obj, path):
    current = obj
    for step in _parse(path):
        current = _step(current, step)
        if current is _MISSING:
            return _MISSING
    return current


def get_path(obj, path, default=None):
    value = _follow(obj, path)
    return default if value is _MISSING else value


def has_path(obj, path):
    return _follow(obj, path) is not _MISSING
