"""Semantic versions and npm-style version ranges."""

import re

_NUM = r"(?:0|[1-9]\d*)"
_IDENT = rf"(?:{_NUM}|\d*[A-Za-z-][0-9A-Za-z-]*)"
_VERSION = re.compile(
    rf"({_NUM})\.({_NUM})\.({_NUM})(?:-({_IDENT}(?:\.{_IDENT})*))?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?"
)
_PARTIAL = re.compile(rf"({_NUM})(?:\.({_NUM}))?")
_COMPARATOR = re.compile(r"(>=|<=|>|<|=|\^|~)?(.+)")
_RELEASE = (1,)  # sorts after every pre-release key, which starts with 0


def _key(version):
    match = _VERSION.fullmatch(version)
    if not match:
        raise ValueError(f"invalid version {version!r}")
    major, minor, patch, pre = match.groups()
    pre_key = _RELEASE if pre is None else (0, tuple(pre.split(".")))
    return (int(major), int(minor), int(patch), pre_key)


def _plain(major, minor, patch):
    return (major, minor, patch, _RELEASE)


def compare_versions(a, b):
    ka, kb = _key(a), _key(b)
    return (ka > kb) - (ka < kb)


def _full_bounds(op, text):
    key = _key(text)
    major, minor, patch = key[:3]
    if op in ("", "="):
        return [("==", key)]
    if op in (">", ">=", "<", "<="):
        return [(op, key)]
    if op == "~":
        return [(">=", key), ("<", _plain(major, minor + 1, 0))]
    return [(">=", key), ("<", _plain(major + 1, 0, 0))]


def _partial_bounds(op, text):
    match = _PARTIAL.fullmatch(text)
    if not match:
        raise ValueError(f"invalid version in range: {text!r}")
    major = int(match.group(1))
    minor = None if match.group(2) is None else int(match.group(2))
    low = _plain(major, minor or 0, 0)
    following = _plain(major + 1, 0, 0) if minor is None else _plain(major, minor + 1, 0)
    if op in ("", "=", "~"):
        return [(">=", low), ("<", following)]
    if op == "^":
        return [(">=", low), ("<", _plain(major + 1, 0, 0))]
    return [(op, low)]


def _comparator_bounds(token):
    op, text = _COMPARATOR.fullmatch(token).groups()
    op = op or ""
    if _VERSION.fullmatch(text):
        return _full_bounds(op, text)
    return _partial_bounds(op, text)


def _parse_range(range_):
    sets = []
    for part in range_.split("||"):
        tokens = part.split()
        if tokens == ["*"]:
            tokens = []
        sets.append([bound for token in tokens for bound in _comparator_bounds(token)])
    return sets


_CHECKS = {
    "==": lambda k, b: k == b, ">": lambda k, b: k > b, ">=": lambda k, b: k >= b,
    "<": lambda k, b: k < b, "<=": lambda k, b: k <= b,
}


def _matches(key, sets):
    return any(all(_CHECKS[op](key, bound) for op, bound in bounds) for bounds in sets)


def satisfies(version, range_):
    return _matches(_key(version), _parse_range(range_))


def max_satisfying(versions, range_):
    sets = _parse_range(range_)
    best = None
    for version in versions:
        key = _key(version)
        if _matches(key, sets) and (best is None or key > best[0]):
            best = (key, version)
    return None if best is None else best[1]
