"""The values the sweep (:mod:`bench.probes.sweep`) sets in one place of an observed call, chosen from what
the place holds and the code's own constants: each a class of input a wrong fix hides behind (a sequence one
item short or nested deeper, a grid blanked but for one edge, a dotted text shortened, a number's neighbours,
the code's own literals, a live list cut)."""

from __future__ import annotations

from bench.probes.strategies import Seeds, timedeltas_around

OTHER_ENCODINGS = ("latin-1", "ascii")  # a text file's encodings besides the UTF-8 tests use
LITERAL_ITEMS = 4  # items of a list given the code's literals, and literals each is given
CUT_ITEMS = 6  # items of a live list each left alone in it
MAX_ITERATED_TEXT = 32  # a str longer than this is not also handed over as an iterator of its characters


def put(items: list, at: int, value) -> list:
    return items[:at] + [value] + items[at + 1:]


def chosen_values(item, seeds: Seeds) -> list:
    """The values the sweep sets in a place holding ``item``: a sequence also as an iterator of its items,
    without its last item and empty (generation keeps a sequence's length: a game one frame short, a hook
    with no implementations), and so a dict (a call missing one of the arguments it names), and with None for
    its first item, for its last (the sentinel ``next(it, None)`` gives) and before its first (a row whose
    marker sits in its second cell), nested in itself one level deeper, and a grid of ints blanked but for one
    edge; bytes also one byte short and empty (a message cut short); an int also as the float it equals
    (``next_power_of_two(1.0)``), as a half, set to each of the code's own constants and to its float constants
    (``kelvin < -1e-9`` where the tests pass -1) and to its neighbours; a timedelta zero, turned negative and a
    minute longer (two offsets of one name); a text file in memory given another encoding; a str set to each of the code's own str literals (``nested ==
    "self"``, ``headers == "firstrow"``), handed over as an iterator of its characters and, when dotted,
    shortened by a part and by two (``"^0"``); bytes set to the code's own bytes literals and led by them; a
    flag turned over."""
    if item[0] in ("l", "t", "d"):
        found = [["it", item[1]]] if item[0] == "l" else []
        if item[1]:
            found.append([item[0], item[1][:-1]])
        if len(item[1]) > 1:
            found.append([item[0], []])
        if item[0] != "d" and item[1]:  # None where an item was (the sentinel of ``next(it, None)``), and before it
            found += [[item[0], [["N"], *item[1][1:]]], [item[0], [*item[1][:-1], ["N"]]]][:len(item[1])]
            found.append([item[0], [["N"], *item[1]]])
        return found + _nested_deeper(item) + _edges_kept(item) + _items_given_literals(item, seeds)
    if item[0] == "b":
        return flipped(item)
    if item[0] == "s":
        characters = [["it", [["s", c] for c in item[1]]]] if len(item[1]) <= MAX_ITERATED_TEXT else []
        return literals(item, seeds) + characters + _dotted_shorter(item[1])
    if item[0] in ("y", "Y"):
        held = bytes.fromhex(item[1])
        short = [[item[0], held[:-1].hex()]] if held else []  # a message cut short: one byte, or all of it
        return literals(item, seeds) + short + ([[item[0], ""]] if len(held) > 1 else [])
    if item[0] == "i":
        whole = [["f", repr(float(int(item[1])))]] if abs(int(item[1])) < 1 << 53 else []
        # and last, its own neighbours: a length one past what a buffer holds, a count one short
        neighbours = [["i", str(int(item[1]) + step)] for step in (1, -1)]
        return whole + [["f", "0.5"]] + [["i", str(v)] for v in seeds.ints if str(v) != item[1]] + [
            ["f", repr(v)] for v in seeds.floats] + neighbours
    if item[0] == "f":
        return [["f", repr(float(v))] for v in (*seeds.floats, *seeds.ints[:16]) if repr(float(v)) != item[1]]
    if item[0] == "tw":  # a text file over bytes in memory: another encoding than the tests' (a pager's output)
        return [[*item[:2], encoding, *item[3:]] for encoding in OTHER_ENCODINGS if encoding != item[2]]
    return timedeltas_around(item)


def _items_given_literals(item, seeds: Seeds) -> list:
    """A list or tuple with one of its first :data:`LITERAL_ITEMS` str (or bytes) items set to each of the
    code's own literals of that type: the marker a row holds in its second cell (tabulate's
    ``["x", SEPARATING_LINE]``), where the tests put it in the first alone."""
    if item[0] not in ("l", "t"):
        return []
    return [[item[0], put(item[1], j, value)] for j, held in enumerate(item[1][:LITERAL_ITEMS])
            for value in literals(held, seeds)[:LITERAL_ITEMS]]


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
                return [[item[0], put(item[1], j, ["d", [[key, item], *rest]])]]
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


def flipped(item) -> list:
    return [["b", not item[1]]] if item[0] == "b" and isinstance(item[1], bool) else []


def literals(item, seeds: Seeds) -> list:
    """A str set to each of the code's str literals; bytes set to each of its bytes literals, and led by it
    (a line terminator at index 0)."""
    if item[0] == "s":
        return [["s", text] for text in seeds.strings if text != item[1]]
    if item[0] in ("y", "Y"):
        held = bytes.fromhex(item[1])
        return [[item[0], value.hex()] for literal in seeds.bytes_ for value in (literal, literal + held)
                if value != held]
    return []


def cuts(held) -> list:
    """A live list of what cannot be written (``["~cut", 0, n]``), cut in the sandbox: emptied, then each of its
    first :data:`CUT_ITEMS` items alone and its last alone. pluggy's ``call_extra`` on a hook with no
    implementations, or with only its ``tryfirst`` one, which the list keeps before its wrappers."""
    if held[0] != "~cut" or held[2] < 1:
        return []
    alone = sorted({*range(min(held[2], CUT_ITEMS)), held[2] - 1}) if held[2] > 1 else []
    return [["~cut", 0, 0]] + [["~cut", j, j + 1] for j in alone]


def nudged(item) -> list:
    return [["i", str(int(item[1]) + 1)]] if item[0] == "i" else []
