"""The sweep of :mod:`bench.probes.generate`: calls that change one place of an observed call to a value chosen,
not drawn."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from bench.probes.chosen import chosen_values, cuts, flipped, literals, nudged, put
from bench.probes.equal_numbers import PLACE as EQUAL
from bench.probes.equal_numbers import equal_number_changes
from bench.probes.runs import written_text
from bench.probes.spelt import spelt_changes
from bench.probes.strategies import Seeds, timedeltas_around

MAX_CALLS = 48  # observed calls the sweep starts from (as many as generation's draws start from)
EQUAL_EVERY = 4  # one call in this many makes two numbers equal (bench.probes.equal_numbers), at most


def swept(observed, seeds: Seeds, limit: int, seen: set, first: int, typed: Typed | None = None,
          start: int = 0, kin: dict | None = None) -> list:
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
    the next round. The questions are asked from the ``start``-th on, round to the first.

    ``kin`` holds the values other targets of the same file were given, by place (``relations.slot_values``):
    a place is also set to each of those of its own type (``reachable_count`` given the mazes of
    ``shortest_path``'s tests, one whose goal cannot be reached among them)."""
    typed, kin = typed or Typed(), kin or {}
    by_pair: dict[tuple, list] = {}  # (place, value) -> the calls that make that change, one per observed call
    nearness: dict[tuple, float] = {}  # (place, value) -> how far a number spelt in a text moved (the least first)
    for turn, (args, kwargs) in enumerate(observed[:MAX_CALLS]):
        for place, value, call in [*_changes(args, kwargs, seeds, typed, first, kin),
                                   *equal_number_changes(args, kwargs)]:
            by_pair.setdefault((place, value), []).append(call)
        for place, value, call, moved in spelt_changes(args, kwargs, seeds, first):
            by_pair.setdefault((place, value), []).append(call)
            nearness[place, value] = min(moved, nearness.get((place, value), moved))
    # Two numbers made equal are many changes of one lane (every number of a game of bowling set to every
    # other): as one place among two they took half the turns and displaced the one-place changes that had
    # found other wrong fixes, so they come one in EQUAL_EVERY at most, each once.
    equal = [calls[0] for (place, _), calls in by_pair.items() if place == EQUAL]
    by_place: dict[tuple, list[list]] = {}
    for (place, _), calls in sorted(by_pair.items(), key=lambda pair: nearness.get(pair[0], 0.0)):
        if place != EQUAL:
            turn = len(by_place.setdefault(place, [])) % len(calls)
            by_place[place].append(calls[turn:] + calls[:turn])
    rounds = max((len(calls) for calls in by_pair.values()), default=0)
    order = _every([call for round_ in range(rounds) for call in _interleaved(
        [[calls[round_] for calls in pairs if round_ < len(calls)] for pairs in by_place.values()])],
        equal, EQUAL_EVERY)
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


def _changes(args: str, kwargs: str, seeds: Seeds, typed: Typed, first: int, kin: dict):
    """(place, value, call) for each one-place change of the observed call ``(args, kwargs)`` the sweep makes."""
    positional, named = json.loads(args)[1], json.loads(kwargs)
    for i, item in enumerate(positional[first:], first):
        items = _typed_items(item, typed.names[i], typed) if i < len(typed.names) else []
        for value in typed_values(item, typed.kinds_at(i)) + chosen_values(item, seeds) + items:
            yield ("at", i), written_text(value), (written_text(["l", put(positional, i, value)]), kwargs)
        for value in kin.get(("p", i), ()):
            if value[0] == item[0] and value != item:
                yield ("kin", i), written_text(value), (written_text(["l", put(positional, i, value)]), kwargs)
    # an argument written whole (a method's ``self`` too): each attribute of its own swept as a place is, as a
    # live argument's are below (h11's ReceiveBuffer, its bytes led by the line break the code looks for)
    for i, item in enumerate(positional):
        if item[0] == "o" and len(item) > 2:
            for j, (name, held) in enumerate(item[2]):
                for value in typed_values(held, typed.kinds_at(i, name)) + chosen_values(held, seeds):
                    changed = ["o", item[1], put(item[2], j, [name, value])]
                    yield ("attr", i, name), written_text(value), (
                        written_text(["l", put(positional, i, changed)]), kwargs)
    # a live argument (``self`` too): an attribute of its own the code checks, given a value of each type, and
    # a flag of its own turned over (an option built ``required=False`` in every test, asked once as required),
    # a str of its own set to each of the code's str literals, a list of its own that cannot be written cut
    for i, item in enumerate(positional):
        if item[0] == "~" and len(item) > 1:
            for key, held in item[1]:
                if key[0] == "s":
                    chosen = (typed_values(held, typed.kinds_at(i, key[1])) + flipped(held) + literals(held, seeds)
                              + timedeltas_around(held) + cuts(held))
                    for value in chosen:
                        yield ("own", i, key[1]), written_text(value), (
                            written_text(["l", put(positional, i, _own_set(i, key[1], value, typed))]), kwargs)
        if item[0] == "~":
            yield from _unwritten_checked(positional, i, kwargs, seeds, typed)
    yield from _twins(positional, kwargs, seeds)
    for i, (key, item) in enumerate(named[1]):
        if key[0] == "s":
            for value in (typed_values(item, typed.by_name.get(key[1], ())) + chosen_values(item, seeds)
                          + _typed_items(item, key[1], typed)):
                yield ("named", key[1]), written_text(value), (
                    args, written_text(["d", put(named[1], i, [key, value])]))
    given = set(typed.names[:len(positional)]) | {key[1] for key, _ in named[1] if key[0] == "s"}
    for name, kinds in sorted(typed.by_name.items()):
        if "." not in name and name not in given and name not in typed.names[:typed.positional_only]:
            for value in [v for plain in typed_values(None, kinds) for v in [plain] + flipped(plain)]:
                yield ("named", name), written_text(value), (
                    args, written_text(["d", named[1] + [[["s", name], value]]]))


def _unwritten_checked(positional: list, i: int, kwargs: str, seeds: Seeds, typed: Typed):
    """An attribute of the live argument at ``i`` that the code checks the type of and the site could not write
    (a class, a schema): set to a value of each type checked, a str also to each of the code's str literals.
    marshmallow's ``Nested.schema`` checks ``isinstance(self.nested, str)`` and ``self.nested == "self"``,
    and every test's field held a schema there."""
    if i >= len(typed.names):
        return
    prefix, item = typed.names[i] + ".", positional[i]
    written = {key[1] for key, _ in (item[1] if len(item) > 1 else ()) if key[0] == "s"}
    for name, kinds in sorted(typed.by_name.items()):
        attribute = name[len(prefix):]
        if name.startswith(prefix) and attribute.isidentifier() and attribute not in written:
            plain = typed_values(None, kinds)
            for value in plain + (literals(["s", ""], seeds) if ["s", "a"] in plain else []):
                yield ("own", i, attribute), written_text(value), (
                    written_text(["l", put(positional, i, _own_set(i, attribute, value, typed))]), kwargs)


def _own_set(i: int, name: str, value, typed: Typed) -> list:
    """A live argument with its own attribute ``name`` set to ``value`` and, for a method's ``self``, its memos
    cleared (marshmallow's ``Nested.schema`` answers from ``self._schema`` while it holds a schema)."""
    memos = [[["s", memo], ["N"]] for memo in typed.memos if memo != name] if i == 0 else []
    return ["~", [[["s", name], value], *memos]]


def _typed_items(item, name: str, typed: Typed) -> list:
    """A tuple (or list) with one item given each type the code checks the name it is unpacked into against
    (``"step[2]"``: ``daterange(..., step=(0, 0, timedelta(days=1)))``)."""
    if item[0] not in ("t", "l"):
        return []
    return [[item[0], put(item[1], j, value)] for j, held in enumerate(item[1])
            for value in typed_values(held, typed.by_name.get(f"{name}[{j}]", ()))]


def _twins(positional: list, kwargs: str, seeds: Seeds):
    """The other side of a comparison the tests only ever gave None or a str: a written place of a call whose first
    argument is live (a method's ``self`` at an in-place site) given a twin of it (``["~self", attributes]``,
    made in the sandbox), alike and with one attribute of its own changed — two offsets of one name, two
    fields of one key."""
    if not positional or positional[0][0] != "~" or len(positional[0]) < 2:
        return
    changed = [[]] + [[[key, value]] for key, held in positional[0][1] if key[0] == "s"
                      for value in flipped(held) + literals(held, seeds) + timedeltas_around(held) + nudged(held)]
    for i, item in enumerate(positional[1:], 1):
        if item[0] in ("N", "s"):
            for attributes in changed:
                value = ["~self", attributes]
                yield ("twin", i), written_text(value), (written_text(["l", put(positional, i, value)]), kwargs)


@dataclass(frozen=True)
class Typed:
    """The types the target's own code checks its parameters against (``own_code.checked_types_of``), by name,
    with the names of its positional parameters in order (a method's ``self`` first)."""

    by_name: dict = field(default_factory=dict)  # parameter name, or "name.attribute" -> type names
    names: tuple[str, ...] = ()
    positional_only: int = 0
    memos: tuple[str, ...] = ()  # attributes of the first parameter the code both reads and sets

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


def _every(main: list, extra: list, every: int) -> list:
    """``main`` with one of ``extra`` after each ``every - 1`` of its own, the rest of ``extra`` after it."""
    merged, extra = [], list(extra)
    for n, call in enumerate(main, 1):
        merged.append(call)
        if n % (every - 1) == 0 and extra:
            merged.append(extra.pop(0))
    return merged + extra


def _interleaved(lists: list[list]) -> list:
    """The first of each list, then the second of each, and so on."""
    return [item for round_ in range(max(map(len, lists), default=0)) for item in
            (chosen[round_] for chosen in lists if round_ < len(chosen))]

