"""Whole-call changes for the sweep (:mod:`bench.probes.sweep`): an observed call with every value of one kind
changed alike, where a one-place change would break the call's own agreement with itself.

Two classes the readings of surviving near misses named, each a call the tests could have made but never did:
- **labels as numbers.** A graph's nodes, a table's keys and the names a call passes around are labels: any
  hashable serves. Given as small ints (each distinct text the same int everywhere in the call, in order of
  first appearance), a label can equal a cost, a count or an index the code keeps beside it, and a fix that
  looks a cost up among the nodes it has done meets one (``shortest_path([(1, 2, 1)], 1, 2)``).
- **every number shifted below zero.** Intervals, times and coordinates mean the same moved together; moved
  below zero (each less the largest plus one), they pass a fix that starts a cursor at 0 or at an index
  (``subtract([(-11, -1)], [(-9, -8)])``).
Only a call written whole is changed so: an in-place site's call (a live argument, ``~``) has a few inputs, and
those go to its places and its live arguments' own attributes (ttl_cache's clock set at the expiry lost its
turn to these).
"""

from __future__ import annotations

import json
import math

from bench.probes.runs import written_text

_LISTED = ("l", "t", "S", "F", "dq")  # tags whose items are the list at index 1
_PAIRED = ("d", "od", "ct")  # tags whose [key, value] pairs are the list at index 1


def whole_changes(args: str, kwargs: str, first: int):
    """(place, value, call) for each whole-call change of the observed call ``(args, kwargs)``, its positional
    places before ``first`` (a method's ``self``) left alone."""
    positional, named = json.loads(args)[1], json.loads(kwargs)[1]
    if any(item[0].startswith("~") for item in [*positional, *(value for _, value in named)]):
        return  # an in-place site's call: its few inputs go to its live arguments' attributes and places
    for name, change in (("labels as numbers", _labels_as_numbers), ("shifted below zero", _shifted_below_zero)):
        rule = change([*positional[first:], *(value for _, value in named)])
        if rule is None:
            continue
        new_positional = positional[:first] + [_changed(item, rule) for item in positional[first:]]
        new_named = [[key, _changed(value, rule)] for key, value in named]
        call = (written_text(["l", new_positional]), written_text(["d", new_named]))
        if call != (args, kwargs):
            yield ("whole", name), call[0] + call[1], call


def _atoms(item) -> list:
    """The atoms written in ``item``, in the order :func:`_changed` meets them, live parts aside."""
    found: list = []
    _changed(item, lambda atom: found.append(atom) or atom)
    return found


def _changed(item, rule):
    tag = item[0]
    if tag in ("s", "i", "f"):
        return rule(item)
    if tag in _LISTED:
        return [tag, [_changed(sub, rule) for sub in item[1]], *item[2:]]
    if tag in _PAIRED:
        return [tag, [[_changed(key, rule), _changed(value, rule)] for key, value in item[1]], *item[2:]]
    if tag == "o":
        return [tag, item[1], [[name, _changed(value, rule)] for name, value in item[2]]]
    return item


def _labels_as_numbers(items):
    """Each distinct text made a small int, the same one wherever it is; None when the call has no text."""
    numbers: dict[str, int] = {}
    for atom in (a for item in items for a in _atoms(item)):
        if atom[0] == "s":
            numbers.setdefault(atom[1], len(numbers) + 1)
    if not numbers:
        return None
    return lambda atom: ["i", str(numbers[atom[1]])] if atom[0] == "s" else atom


def _shifted_below_zero(items):
    """Every number less the largest plus one (ints stay ints); None when the call has no finite number."""
    values = [int(a[1]) if a[0] == "i" else float(a[1]) for item in items for a in _atoms(item) if a[0] != "s"]
    finite = [v for v in values if not isinstance(v, float) or math.isfinite(v)]
    if not finite:
        return None
    shift = math.floor(max(finite)) + 1

    def rule(atom):
        if atom[0] == "i":
            return ["i", str(int(atom[1]) - shift)]
        if atom[0] == "f" and math.isfinite(float(atom[1])):
            return ["f", repr(float(atom[1]) - shift)]
        return atom
    return rule
