"""The sweep of :mod:`bench.probes.generate`: calls that change one place of an observed call to a value chosen,
not drawn."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from bench.probes.equal_numbers import PLACE as EQUAL
from bench.probes.equal_numbers import equal_number_changes
from bench.probes.runs import written_text
from bench.probes.spelt import spelt_changes
from bench.probes.strategies import Seeds, timedeltas_around

MAX_CALLS = 48  # observed calls the sweep starts from (as many as generation's draws start from)
MAX_ITERATED_TEXT = 32  # a str longer than this is not also handed over as an iterator of its characters
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
        for value in typed_values(item, typed.kinds_at(i)) + _chosen_values(item, seeds) + items:
            yield ("at", i), written_text(value), (written_text(["l", _put(positional, i, value)]), kwargs)
        for value in kin.get(("p", i), ()):
            if value[0] == item[0] and value != item:
                yield ("kin", i), written_text(value), (written_text(["l", _put(positional, i, value)]), kwargs)
    # an argument written whole (a method's ``self`` too): each attribute of its own swept as a place is, as a
    # live argument's are below (h11's ReceiveBuffer, its bytes led by the line break the code looks for)
    for i, item in enumerate(positional):
        if item[0] == "o" and len(item) > 2:
            for j, (name, held) in enumerate(item[2]):
                for value in typed_values(held, typed.kinds_at(i, name)) + _chosen_values(held, seeds):
                    changed = ["o", item[1], _put(item[2], j, [name, value])]
                    yield ("attr", i, name), written_text(value), (
                        written_text(["l", _put(positional, i, changed)]), kwargs)
    # a live argument (``self`` too): an attribute of its own the code checks, given a value of each type, and
    # a flag of its own turned over (an option built ``required=False`` in every test, asked once as required),
    # a str of its own set to each of the code's str literals, a list of its own that cannot be written cut
    for i, item in enumerate(positional):
        if item[0] == "~" and len(item) > 1:
            for key, held in item[1]:
                if key[0] == "s":
                    chosen = (typed_values(held, typed.kinds_at(i, key[1])) + _flipped(held) + _literals(held, seeds)
                              + timedeltas_around(held) + _cuts(held))
                    for value in chosen:
                        yield ("own", i, key[1]), written_text(value), (
                            written_text(["l", _put(positional, i, ["~", [[key, value]]])]), kwargs)
    yield from _twins(positional, kwargs, seeds)
    for i, (key, item) in enumerate(named[1]):
        if key[0] == "s":
            for value in (typed_values(item, typed.by_name.get(key[1], ())) + _chosen_values(item, seeds)
                          + _typed_items(item, key[1], typed)):
                yield ("named", key[1]), written_text(value), (
                    args, written_text(["d", _put(named[1], i, [key, value])]))
    given = set(typed.names[:len(positional)]) | {key[1] for key, _ in named[1] if key[0] == "s"}
    for name, kinds in sorted(typed.by_name.items()):
        if "." not in name and name not in given and name not in typed.names[:typed.positional_only]:
            for value in [v for plain in typed_values(None, kinds) for v in [plain] + _flipped(plain)]:
                yield ("named", name), written_text(value), (
                    args, written_text(["d", named[1] + [[["s", name], value]]]))


def _typed_items(item, name: str, typed: Typed) -> list:
    """A tuple (or list) with one item given each type the code checks the name it is unpacked into against
    (``"step[2]"``: ``daterange(..., step=(0, 0, timedelta(days=1)))``)."""
    if item[0] not in ("t", "l"):
        return []
    return [[item[0], _put(item[1], j, value)] for j, held in enumerate(item[1])
            for value in typed_values(held, typed.by_name.get(f"{name}[{j}]", ()))]


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


def _cuts(held) -> list:
    """A live list of what cannot be written (``["~cut", 0, n]``), cut in the sandbox: emptied, its first item
    alone and its last alone. pluggy's ``call_extra`` on a hook with no implementations, or with only the
    ``tryfirst`` one its list keeps last."""
    if held[0] != "~cut" or held[2] < 1:
        return []
    return [["~cut", 0, 0]] + ([["~cut", 0, 1], ["~cut", held[2] - 1, held[2]]] if held[2] > 1 else [])


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


def _chosen_values(item, seeds: Seeds) -> list:
    """The values the sweep sets in a place holding ``item``: a sequence also as an iterator of its items,
    without its last item and empty (generation keeps a sequence's length: a game one frame short, a hook
    with no implementations), and so a dict (a call missing one of the arguments it names), and with None for
    its first item, for its last (the sentinel ``next(it, None)`` gives) and before its first (a row whose
    marker sits in its second cell), nested in itself one level deeper, and a grid of ints blanked but for one
    edge; bytes also one byte short and empty
    (a message cut short); an int also as the float it equals (``next_power_of_two(1.0)``), as a half, set to
    each of the code's own constants and to its float constants (``kelvin < -1e-9`` where the tests pass -1)
    and to its neighbours;
    a timedelta zero, turned negative and a minute longer (two offsets of one name); a str set to each of the
    code's own str literals (``nested == "self"``, ``headers == "firstrow"``), handed over as an iterator of
    its characters and, when dotted, shortened by a part and by two (``"^0"``); bytes set to the code's own
    bytes literals and led by them; a flag turned over."""
    if item[0] in ("l", "t", "d"):
        found = [["it", item[1]]] if item[0] == "l" else []
        if item[1]:
            found.append([item[0], item[1][:-1]])
        if len(item[1]) > 1:
            found.append([item[0], []])
        if item[0] != "d" and item[1]:  # None where an item was (the sentinel of ``next(it, None)``), and before it
            found += [[item[0], [["N"], *item[1][1:]]], [item[0], [*item[1][:-1], ["N"]]]][:len(item[1])]
            found.append([item[0], [["N"], *item[1]]])
        return found + _nested_deeper(item) + _edges_kept(item)
    if item[0] == "b":
        return _flipped(item)
    if item[0] == "s":
        characters = [["it", [["s", c] for c in item[1]]]] if len(item[1]) <= MAX_ITERATED_TEXT else []
        return _literals(item, seeds) + characters + _dotted_shorter(item[1])
    if item[0] in ("y", "Y"):
        held = bytes.fromhex(item[1])
        short = [[item[0], held[:-1].hex()]] if held else []  # a message cut short: one byte, or all of it
        return _literals(item, seeds) + short + ([[item[0], ""]] if len(held) > 1 else [])
    if item[0] == "i":
        whole = [["f", repr(float(int(item[1])))]] if abs(int(item[1])) < 1 << 53 else []
        # and last, its own neighbours: a length one past what a buffer holds, a count one short
        neighbours = [["i", str(int(item[1]) + step)] for step in (1, -1)]
        return whole + [["f", "0.5"]] + [["i", str(v)] for v in seeds.ints if str(v) != item[1]] + [
            ["f", repr(v)] for v in seeds.floats] + neighbours
    if item[0] == "f":
        return [["f", repr(float(v))] for v in (*seeds.floats, *seeds.ints[:16]) if repr(float(v)) != item[1]]
    return timedeltas_around(item)


def _edges_kept(item) -> list:
    """A grid of ints that holds 0 (a blank) with every cell blanked but those of its first row, of its last row,
    of its first column and of its last column, in turn: an edge the code forgets (``range(8)`` over nine rows)
    is told apart only where that edge alone decides, and the tests' grids are decided elsewhere too."""
    rows = item[1]
    if item[0] != "l" or len(rows) < 2 or any(row[0] != "l" or len(row[1]) != len(rows[0][1]) for row in rows):
        return []
    cells = [cell for row in rows for cell in row[1]]
    if len(rows[0][1]) < 2 or any(cell[0] != "i" for cell in cells) or ["i", "0"] not in cells:
        return []
    last_row, last_column = len(rows) - 1, len(rows[0][1]) - 1
    kept = (lambda r, c: r == 0, lambda r, c: r == last_row, lambda r, c: c == 0, lambda r, c: c == last_column)
    return [["l", [["l", [cell if keep(r, c) else ["i", "0"] for c, cell in enumerate(row[1])]]
                   for r, row in enumerate(rows)]] for keep in kept]


def _nested_deeper(item) -> list:
    """The structure one level deeper than the tests nest it: a sequence holding a dict, with that dict's first
    value the sequence itself; a dict with its first value the dict itself. tomlkit's ``item([{"a": 1}])`` made
    ``item([{"a": [{"a": 1}]}])``: an array of tables inside a table inside an array, where a fix handing the
    key, not the table, down as the parent builds another kind of array."""
    if item[0] in ("l", "t"):
        for j, sub in enumerate(item[1]):
            if sub[0] == "d" and sub[1]:
                (key, _), *rest = sub[1]
                return [[item[0], _put(item[1], j, ["d", [[key, item], *rest]])]]
        return []
    if item[0] == "d" and item[1]:
        (key, _), *rest = item[1]
        return [["d", [[key, item], *rest]]]
    return []


def _dotted_shorter(text: str) -> list:
    """A dotted text with its last part dropped, and its last two: a version range with fewer parts (``"^0"``
    where the tests wrote ``"^0.2.3"``), a dotted name one level up, a decimal without its fraction."""
    found = []
    while "." in text and len(found) < 2:
        text = text.rsplit(".", 1)[0]
        found.append(["s", text])
    return found


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
