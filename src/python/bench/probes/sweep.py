"""The sweep of :mod:`bench.probes.generate`: calls that change one place of an observed call to a value chosen,
not drawn."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from bench.probes.runs import written_text
from bench.probes.spelt import spelt_changes
from bench.probes.strategies import Seeds, timedeltas_around
from bench.probes.whole_call import whole_changes

MAX_CALLS = 48  # observed calls the sweep starts from (as many as generation's draws start from)
MAX_WHOLE_CALLS = 4  # observed calls changed whole (bench.probes.whole_call): a few, not a share of every turn
MAX_ITERATED_TEXT = 32  # a str longer than this is not also handed over as an iterator of its characters


def swept(observed, seeds: Seeds, limit: int, seen: set, first: int, typed: Typed | None = None,
          start: int = 0) -> list:
    """Calls that change one place of an observed call to a value chosen, not drawn: a value of each type the
    code checks that place against (``isinstance(step, timedelta)`` where the tests pass an int), a list
    handed over as an iterator of its items, a number set to each of the code's own constants (an int with its
    neighbours, a float also negated). Where a wrong fix hides is often one exact value (a weekday of 6,
    ``-1e-9``, a clock at the expiry), a type the tests never pass, or the iterator a sequence-only rewrite
    cannot take; a random draw meets it by luck.

    Every pair of a place and a value comes once before any comes twice, the places taken in turn: the same
    constant set in the same place of eight observed calls is one question asked eight times, while the
    budget ran out before the sixth constant of a place was tried (``nth_weekday``'s weekday never met 6
    where the year and month were valid). Each value of a place starts from another observed call, so a
    value first met on a call the code refuses for other reasons (a test of an error) meets a valid one in
    the next round. The questions are asked from the ``start``-th on, round to the first."""
    typed = typed or Typed()
    by_pair: dict[tuple, list] = {}  # (place, value) -> the calls that make that change, one per observed call
    nearness: dict[tuple, float] = {}  # (place, value) -> how far a number spelt in a text moved (the least first)
    for turn, (args, kwargs) in enumerate(observed[:MAX_CALLS]):
        wholes = whole_changes(args, kwargs, first) if turn < MAX_WHOLE_CALLS else ()
        for place, value, call in [*_changes(args, kwargs, seeds, typed, first), *wholes]:
            by_pair.setdefault((place, value), []).append(call)
        for place, value, call, moved in spelt_changes(args, kwargs, seeds, first):
            by_pair.setdefault((place, value), []).append(call)
            nearness[place, value] = min(moved, nearness.get((place, value), moved))
    by_place: dict[tuple, list[list]] = {}
    for (place, _), calls in sorted(by_pair.items(), key=lambda pair: nearness.get(pair[0], 0.0)):
        turn = len(by_place.setdefault(place, [])) % len(calls)
        by_place[place].append(calls[turn:] + calls[:turn])
    rounds = max((len(calls) for calls in by_pair.values()), default=0)
    order = [call for round_ in range(rounds) for call in _interleaved(
        [[calls[round_] for calls in pairs if round_ < len(calls)] for pairs in by_place.values()])]
    if order:  # begun at ``start``: where the sweep of the same target's site before this one left off
        order = order[start % len(order):] + order[:start % len(order)]
    found: list = []
    for call in order:
        if len(found) == limit:
            break
        if call not in seen:
            seen.add(call)
            found.append(call)
    return found


def _changes(args: str, kwargs: str, seeds: Seeds, typed: Typed, first: int):
    """(place, value, call) for each one-place change of the observed call ``(args, kwargs)`` the sweep makes."""
    positional, named = json.loads(args)[1], json.loads(kwargs)
    for i, item in enumerate(positional[first:], first):
        for value in typed_values(item, typed.kinds_at(i)) + _chosen_values(item, seeds):
            yield ("at", i), written_text(value), (written_text(["l", _put(positional, i, value)]), kwargs)
    # a live argument (``self`` too): an attribute of its own the code checks, given a value of each type, and
    # a flag of its own turned over (an option built ``required=False`` in every test, asked once as required),
    # a str of its own set to each of the code's str literals
    for i, item in enumerate(positional):
        if item[0] == "~" and len(item) > 1:
            for key, held in item[1]:
                if key[0] == "s":
                    chosen = (typed_values(held, typed.kinds_at(i, key[1])) + _flipped(held) + _literals(held, seeds)
                              + timedeltas_around(held))
                    for value in chosen:
                        yield ("own", i, key[1]), written_text(value), (
                            written_text(["l", _put(positional, i, ["~", [[key, value]]])]), kwargs)
    yield from _twins(positional, kwargs, seeds)
    for i, (key, item) in enumerate(named[1]):
        if key[0] == "s":
            for value in typed_values(item, typed.by_name.get(key[1], ())) + _chosen_values(item, seeds):
                yield ("named", key[1]), written_text(value), (
                    args, written_text(["d", _put(named[1], i, [key, value])]))
    given = set(typed.names[:len(positional)]) | {key[1] for key, _ in named[1] if key[0] == "s"}
    for name, kinds in sorted(typed.by_name.items()):
        if "." not in name and name not in given and name not in typed.names[:typed.positional_only]:
            for value in [v for plain in typed_values(None, kinds) for v in [plain] + _flipped(plain)]:
                yield ("named", name), written_text(value), (
                    args, written_text(["d", named[1] + [[["s", name], value]]]))


def _twins(positional: list, kwargs: str, seeds: Seeds):
    """The other side of a comparison the tests only ever gave None or a str: a written place of a call whose first
    argument is live (a method's ``self`` at an in-place site) given a twin of it (``["~self", attributes]``,
    made in the sandbox), alike and with one attribute of its own changed — two offsets of one name, two
    fields of one key."""
    if not positional or positional[0][0] != "~" or len(positional[0]) < 2:
        return
    changed = [[]] + [[[key, value]] for key, held in positional[0][1] if key[0] == "s"
                      for value in _flipped(held) + _literals(held, seeds) + timedeltas_around(held) + _nudged(held)]
    for i, item in enumerate(positional[1:], 1):
        if item[0] in ("N", "s"):
            for attributes in changed:
                value = ["~self", attributes]
                yield ("twin", i), written_text(value), (written_text(["l", _put(positional, i, value)]), kwargs)


def _nudged(item) -> list:
    return [["i", str(int(item[1]) + 1)]] if item[0] == "i" else []


def _put(items: list, at: int, value) -> list:
    return items[:at] + [value] + items[at + 1:]


@dataclass(frozen=True)
class Typed:
    """The types the target's own code checks its parameters against (``own_code.checked_types_of``), by name,
    with the names of its positional parameters in order (a method's ``self`` first)."""

    by_name: dict = field(default_factory=dict)  # parameter name, or "name.attribute" -> type names
    names: tuple[str, ...] = ()
    positional_only: int = 0

    def kinds_at(self, position: int, attribute: str = "") -> tuple[str, ...]:
        """The types checked for the parameter at ``position``, or for its ``attribute``."""
        if position >= len(self.names):
            return ()
        return self.by_name.get(self.names[position] + ("." + attribute if attribute else ""), ())


_TAGS = {"int": "i", "float": "f", "str": "s", "bytes": "y", "bytearray": "Y", "bool": "b", "list": "l",
         "tuple": "t", "dict": "d", "set": "S", "frozenset": "F", "NoneType": "N", "timedelta": "td",
         "date": "T", "datetime": "T", "time": "T", "Decimal": "D", "Fraction": "Q"}
_PLAIN = {"i": ["i", "1"], "f": ["f", "1.5"], "s": ["s", "a"], "y": ["y", "61"], "Y": ["Y", "61"],
          "b": ["b", True], "l": ["l", []], "t": ["t", []], "d": ["d", []], "S": ["S", []], "F": ["F", []],
          "N": ["N"], "td": ["td", 1, 0, 0], "D": ["D", "1.5"], "Q": ["Q", "1", "2"]}
_TIMES = {"date": "2020-01-02", "datetime": "2020-01-02T03:04:05", "time": "03:04:05"}


def typed_values(item, kinds) -> list:
    """A written value of each type named in ``kinds`` (types the code checks for) that ``item`` (the observed
    value, or None where the call leaves the parameter out) is not: the observed value converted where it
    can be (an int as a float, a list as a tuple, a str as bytes), else a plain one of the type."""
    values = []
    for kind in kinds:
        tag = _TAGS.get(kind)
        if tag is None or item is not None and item[0] == tag and (tag != "T" or item[1] == kind):
            continue
        value = _converted(item, tag) if item is not None else None
        value = value or (["T", kind, _TIMES[kind]] if tag == "T" else _PLAIN[tag])
        if value not in values:
            values.append(value)
    return values


def _converted(item, tag):
    """``item`` written as a value of ``tag`` that holds the same (an int 2 as 2.0, a list as a tuple of its
    items), or None."""
    have = item[0]
    if tag == "f" and have == "i" and abs(int(item[1])) < 1 << 53:
        return ["f", repr(float(int(item[1])))]
    if tag == "i" and have == "f" and item[1] not in ("nan", "inf", "-inf") and float(item[1]).is_integer():
        return ["i", str(int(float(item[1])))]
    if tag in ("l", "t") and have in ("l", "t", "it"):
        return [tag, item[1]]
    if tag == "y" and have == "s":
        return ["y", item[1].encode("utf-8", "surrogatepass").hex()]
    if tag == "s" and have == "R":  # a class where its name may stand (marshmallow's ``Nested("UserSchema")``)
        return ["s", item[1].rpartition(":")[2].rpartition(".")[2]]
    if tag == "s" and have == "y":
        return ["s", bytes.fromhex(item[1]).decode("latin-1")]
    if tag == "td" and have == "i" and abs(int(item[1])) < 1000:
        return ["td", int(item[1]), 0, 0]
    if tag in ("D", "Q") and have == "i":
        return ["D", item[1]] if tag == "D" else ["Q", item[1], "1"]
    return None


def _interleaved(lists: list[list]) -> list:
    """The first of each list, then the second of each, and so on."""
    return [item for round_ in range(max(map(len, lists), default=0)) for item in
            (chosen[round_] for chosen in lists if round_ < len(chosen))]


def _chosen_values(item, seeds: Seeds) -> list:
    """The values the sweep sets in a place holding ``item``: a sequence also as an iterator of its items,
    without its last item and empty (generation keeps a sequence's length: a game one frame short, a hook
    with no implementations), and so a dict (a call missing one of the arguments it names), and with None for
    its first item, for its last (the sentinel ``next(it, None)`` gives) and before its first (a row whose
    marker sits in its second cell); bytes also one byte short and empty
    (a message cut short); an int also as the float it equals (``next_power_of_two(1.0)``), as a half, set to
    each of the code's own constants and to its float constants (``kelvin < -1e-9`` where the tests pass -1);
    a timedelta zero, turned negative and a minute longer (two offsets of one name); a str set to each of the
    code's own str literals (``nested == "self"``, ``headers == "firstrow"``) and
    handed over as an iterator of its characters; bytes set to the code's own bytes literals and led by
    them; a flag turned over."""
    if item[0] in ("l", "t", "d"):
        found = [["it", item[1]]] if item[0] == "l" else []
        if item[1]:
            found.append([item[0], item[1][:-1]])
        if len(item[1]) > 1:
            found.append([item[0], []])
        if item[0] != "d" and item[1]:  # None where an item was (the sentinel of ``next(it, None)``), and before it
            found += [[item[0], [["N"], *item[1][1:]]], [item[0], [*item[1][:-1], ["N"]]]][:len(item[1])]
            found.append([item[0], [["N"], *item[1]]])
        return found
    if item[0] == "b":
        return _flipped(item)
    if item[0] == "s":
        characters = [["it", [["s", c] for c in item[1]]]] if len(item[1]) <= MAX_ITERATED_TEXT else []
        return _literals(item, seeds) + characters
    if item[0] in ("y", "Y"):
        held = bytes.fromhex(item[1])
        short = [[item[0], held[:-1].hex()]] if held else []  # a message cut short: one byte, or all of it
        return _literals(item, seeds) + short + ([[item[0], ""]] if len(held) > 1 else [])
    if item[0] == "i":
        whole = [["f", repr(float(int(item[1])))]] if abs(int(item[1])) < 1 << 53 else []
        return whole + [["f", "0.5"]] + [["i", str(v)] for v in seeds.ints if str(v) != item[1]] + [
            ["f", repr(v)] for v in seeds.floats]
    if item[0] == "f":
        return [["f", repr(float(v))] for v in (*seeds.floats, *seeds.ints[:16]) if repr(float(v)) != item[1]]
    return timedeltas_around(item)


def _flipped(item) -> list:
    return [["b", not item[1]]] if item[0] == "b" and isinstance(item[1], bool) else []


def _literals(item, seeds: Seeds) -> list:
    """A str set to each of the code's str literals; bytes set to each of its bytes literals, and led by it
    (a line terminator at index 0)."""
    if item[0] == "s":
        return [["s", text] for text in seeds.strings if text != item[1]]
    if item[0] in ("y", "Y"):
        held = bytes.fromhex(item[1])
        return [[item[0], value.hex()] for literal in seeds.bytes_ for value in (literal, literal + held)
                if value != held]
    return []
