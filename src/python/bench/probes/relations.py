"""Calls varied as a whole, for :mod:`bench.probes.generate`: one place given the value another observed call of
the same function put there, a str renamed wherever the call holds it, two places of one call made equal.
Each works on the written form (``bench.probes._probe_codec``); a live argument at an in-place site carries just
the own attributes a variation changed."""

from __future__ import annotations

import json
from typing import Sequence

from bench.probes.runs import written_text
from bench.probes.strategies import MAX_POINTS, MAX_TEXT, Seeds, strategy_for

_KEYED = ("d", "od")  # tags whose [key, value] pairs are the list at index 1: a dict, an OrderedDict
MAX_ELSEWHERE = 16  # values one place of a target's calls holds across its observed calls, kept for others


def slot_values(calls: Sequence[tuple[str, str]]) -> dict[tuple, list]:
    """The distinct written values each place of the calls ``calls`` holds, in the order met: ``("p", i)``
    a position, ``("k", name)`` a named argument, ``("a", i, name)`` an own attribute of the live argument at
    position ``i``. A value one test gives (``only={"name"}``) is a value another test's call (``only=None``)
    is built to take: the branch the second never reached is often where the fix is."""
    found: dict[tuple, dict[str, list]] = {}

    def put(slot, value) -> None:
        held = found.setdefault(slot, {})
        if len(held) < MAX_ELSEWHERE:
            held.setdefault(written_text(value), value)

    for args, kwargs in calls:
        for i, item in enumerate(json.loads(args)[1]):
            if item[0] != "~":
                put(("p", i), item)
            for name, value in item[1] if item[0] == "~" and len(item) > 1 else ():
                put(("a", i, written_text(name)), value)
        for key, value in json.loads(kwargs)[1]:
            put(("k", written_text(key)), value)
    return {slot: list(values.values()) for slot, values in found.items()}


def or_elsewhere(strategy, item, pool: dict, index: int):
    """``strategy``, or a value another observed call put in the same place (for a live argument: in one of its
    own attributes)."""
    from hypothesis import strategies as st

    if item[0] != "~":
        others = [v for v in pool.get(("p", index), ()) if v != item]
        return st.one_of(strategy, st.sampled_from(others)) if others else strategy
    options = []
    for name, value in item[1] if len(item) > 1 else ():
        others = [v for v in pool.get(("a", index, written_text(name)), ()) if v != value]
        if others:
            options.append(st.sampled_from(others).map(lambda v, name=name: ["~", [[name, v]]]))
    return st.one_of(strategy, *options) if options else strategy


def named_elsewhere(strategy, named, pool: dict):
    """``strategy`` (of the named arguments), or one of them given a value another observed call gave it."""
    from hypothesis import strategies as st

    options = []
    for i, (key, value) in enumerate(named[1]):
        others = [v for v in pool.get(("k", written_text(key)), ()) if v != value]
        if others:
            options.append(st.sampled_from(others).map(
                lambda v, i=i: ["d", [[k, v if j == i else x] for j, (k, x) in enumerate(named[1])]]))
    return st.one_of(strategy, *options) if options else strategy


def strings_in(encoded, at_least: int = 2) -> list[str]:
    """Every str the written values hold at least twice (dict keys and live arguments' own attributes
    included), sorted: a relation between arguments (a key and the option naming it) that renaming keeps, where
    a str held once is varied anyway."""
    found: dict[str, int] = {}

    def walk(e) -> None:
        if isinstance(e, list) and e:
            if e[0] == "s" and len(e) == 2 and isinstance(e[1], str):
                found[e[1]] = found.get(e[1], 0) + 1
                return
            if e[0] == "~":  # a live argument: its attributes' values, not their names
                for _, value in e[1] if len(e) > 1 else ():
                    walk(value)
                return
            for item in e:
                walk(item)

    walk(encoded)
    return sorted(t for t, count in found.items() if count >= at_least and len(t) <= MAX_TEXT)


def renamed_call(positional, named, old: str, new: str) -> tuple[str, str]:
    """The call with every str equal to ``old`` made ``new``; a live argument carries just the attributes the
    renaming changed (set in the child before the call)."""

    def rename(e):
        if isinstance(e, list) and e:
            if e[0] == "s" and len(e) == 2 and e[1] == old:
                return ["s", new]
            return [rename(x) for x in e]
        return e

    args = []
    for item in positional:
        if item[0] == "~":
            changed = [[name, rename(value)] for name, value in (item[1] if len(item) > 1 else ())
                       if rename(value) != value]
            args.append(["~", changed] if changed else ["~"])
        else:
            args.append(rename(item))
    return written_text(["l", args]), written_text(rename(named))


def places_of(positional, named, tags: tuple[str, ...] = ("s", "N")) -> list[tuple]:
    """Where a value of one of the written ``tags`` (a str or None) sits in a call: ``(root, path, value)``, the
    root a position (``("p", i)``), a named argument (``("k", i)``) or a live argument's own attribute
    (``("a", i, j)``), the path the indices down to it through lists, tuples, dict values and the attributes of
    objects."""
    found: list[tuple] = []

    def walk(e, root, path) -> None:
        if not isinstance(e, list) or not e or len(found) >= 4 * MAX_POINTS:
            return
        if e[0] in tags and len(e) <= 2:
            found.append((root, tuple(path), e))
        elif e[0] in ("l", "t"):
            for i, item in enumerate(e[1][:MAX_POINTS]):
                walk(item, root, path + [i])
        elif e[0] in _KEYED:
            for i, (_, value) in enumerate(e[1][:MAX_POINTS]):
                walk(value, root, path + [i])
        elif e[0] == "o" and len(e) > 2:
            for i, (_, value) in enumerate(e[2][:MAX_POINTS]):
                walk(value, root, path + [i])

    for i, item in enumerate(positional):
        if item[0] == "~":
            for j, (_, value) in enumerate(item[1] if len(item) > 1 else ()):
                walk(value, ("a", i, j), [])
        else:
            walk(item, ("p", i), [])
    for i, (_, value) in enumerate(named[1]):
        walk(value, ("k", i), [])
    return found


def _put(e, path, value):
    """``e`` with the value at ``path`` (as :func:`_places` walks) replaced by ``value``."""
    if not path:
        return value
    at, rest = path[0], path[1:]
    if e[0] in ("l", "t"):
        return [e[0], [_put(x, rest, value) if i == at else x for i, x in enumerate(e[1])]]
    if e[0] in _KEYED:
        return [e[0], [[k, _put(v, rest, value)] if i == at else [k, v] for i, (k, v) in enumerate(e[1])]]
    return ["o", e[1], [[k, _put(v, rest, value)] if i == at else [k, v] for i, (k, v) in enumerate(e[2])]]


def joined_call(positional, named, place, value) -> tuple[str, str]:
    """The call with the value at ``place`` made ``value`` (written); a live argument carries just the attribute
    changed."""
    root, path, _ = place
    args = []
    for i, item in enumerate(positional):
        if root[:2] == ("a", i):
            name, held = item[1][root[2]]
            args.append(["~", [[name, _put(held, path, value)]]])
        elif item[0] == "~":
            args.append(["~"])
        else:
            args.append(_put(item, path, value) if root == ("p", i) else item)
    kwargs = [[k, _put(v, path, value) if root == ("k", i) else v] for i, (k, v) in enumerate(named[1])]
    return written_text(["l", args]), written_text(["d", kwargs])


def omitted_options(parameters, by_name: dict, given_positions: int, named, seeds: Seeds, pool: dict):
    """A strategy of the named arguments ``named`` with one more: a parameter the call leaves at its literal
    default, given another value (a flag turned over, a number or text around the default, for a ``None``
    default a value another observed call gave it). The tests often pass an option one way or not at all, and a
    wrong variable hides in the branch they never take (``typed=True`` with no keyword arguments). None when the
    call leaves no such parameter."""
    from hypothesis import strategies as st

    ordered, positional_only = parameters
    taken = {k[1] for k, _ in named[1] if k[0] == "s"} | set(ordered[:given_positions]) | set(ordered[:positional_only])
    options = []
    for name, default in sorted(by_name.items()):
        if name in taken:
            continue
        if default[0] == "N":
            others = [v for v in pool.get(("k", written_text(["s", name])), ()) if v != default]
            if name in ordered:
                others += [v for v in pool.get(("p", ordered.index(name)), ()) if v != default and v not in others]
            values = st.sampled_from(others) if others else None
        else:
            values = strategy_for(default, seeds).filter(lambda v, d=default: v != d)
        if values is not None:
            options.append(values.map(lambda v, name=name: ["d", [*named[1], [["s", name], v]]]))
    return st.one_of(*options) if options else None


def with_selves(pool: dict, index: int) -> dict:
    """For a method's argument after ``self``: the values its other calls put there, and the objects they were
    called on. An object met with another of its kind (``a == b``, ``a.merge(b)``) where the tests only ever
    gave ``None`` or a plain value."""
    selves = pool.get(("p", 0), ())
    if index == 0 or not selves:
        return pool
    held = list(pool.get(("p", index), ()))
    return {**pool, ("p", index): held + [s for s in selves if s not in held]}
