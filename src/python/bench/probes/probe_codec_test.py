"""The probe codec, run on the host (it is standard library only): what it writes, what it refuses, and that
what it writes is rebuilt as the same value."""

from __future__ import annotations

import collections
import datetime
import decimal
import enum
import fractions
import io
import json
import sys
import threading
from typing import NamedTuple

import pytest

from bench.probes import _probe_codec as runtime

encode, decode = runtime.make_codec()


class Point(NamedTuple):
    x: int
    y: int


class NamedStream(io.TextIOWrapper):  # click's test runner names its streams so
    pass


class Node:
    def __init__(self, value, nxt=None):
        self.value, self.next = value, nxt


class Hashed:
    """An object whose place in a set is chosen by the test (``RANKS``), as an address chooses an object's."""

    def __init__(self, name, child):
        self.name, self.child = name, child

    def __hash__(self):
        return RANKS[self.name]


RANKS: dict[str, int] = {}


class Slotted:
    __slots__ = ("a", "b")

    def __init__(self, a):
        self.a = a


class Colour(enum.Enum):
    RED = 1


class Liar(int):
    def __repr__(self):
        return "7"

    def __eq__(self, other):
        return True

    __hash__ = int.__hash__


_MISSING = object()  # a library's marker for "not given": found again by this global
ALIAS = _MISSING  # another name of the same marker: the least name is written, whatever the import order


def _make_sentinel():
    class Sentinel:
        pass

    return Sentinel()


SENTINEL = _make_sentinel()


def round_trip(value):
    written = encode(value)
    json.dumps(written)  # always JSON
    return written, decode(json.loads(json.dumps(written)))


@pytest.mark.parametrize("value", [
    None, True, 0, -(10 ** 40), 1.5, float("inf"), complex(1, -2), "é\n", b"\x00\xff", bytearray(b"ab"),
    [1, [2]], (1, (2,)), {"a": [1], 2: None}, {3, 1, 2}, frozenset({"x"}), range(1, 9, 2),
    decimal.Decimal("1.10"), fractions.Fraction(3, 4), datetime.date(2020, 1, 2),
    datetime.datetime(2020, 1, 2, 3, 4, tzinfo=datetime.timezone.utc), datetime.timedelta(days=1, seconds=3),
    collections.OrderedDict(a=1), collections.Counter("aab"), collections.deque([1, 2], maxlen=3),
    ValueError("bad", 3), json.dumps, Colour.RED,
])
def test_builtin_values_round_trip_equal(value):
    _, back = round_trip(value)
    assert type(back) is type(value)
    if isinstance(value, BaseException):
        assert back.args == value.args
    else:
        assert back == value


def test_objects_are_written_by_their_attributes_and_rebuilt():
    written, back = round_trip(Point(1, 2))
    assert written[0] == "u" and written[1].endswith(":Point") and back == Point(1, 2) and type(back) is Point
    written, back = round_trip(Slotted(3))
    assert written == ["o", f"{__name__}:Slotted", [["a", ["i", "3"]], ["b", ["unset"]]]]
    assert back.a == 3 and not hasattr(back, "b")


def test_shared_and_cyclic_values_keep_their_shape():
    shared = [1]
    written, back = round_trip([shared, shared])
    assert written == ["l", [["l", [["i", "1"]]], ["@", 1]]]
    assert back[0] is back[1]
    ring = Node(1)
    ring.next = Node(2, ring)
    _, back = round_trip(ring)
    assert back.next.next is back and back.next.value == 2


def test_a_subclass_is_written_by_its_builtin_parts_not_its_methods():
    written = encode(Liar(3))
    assert written[0] == "u" and written[2] == ["i", "3"]
    assert encode(Liar(3)) != encode(3)


@pytest.mark.parametrize("value, reason", [
    (lambda: 1, "not importable"),
    (open, ""),  # a builtin that is found by name is fine: checked below instead
    (iter([1]), "a value of builtins"),
    ("x" * (runtime.MAX_TEXT + 1), "too long"),
])
def test_values_that_cannot_be_written_faithfully_are_refused(value, reason):
    if value is open:
        assert encode(open) == ["R", "io:open"]
        return
    with pytest.raises(runtime.Unserialisable, match=reason):
        encode(value)


def test_a_cycle_through_an_immutable_value_is_refused():
    class Box(tuple):
        pass

    inner: list = []
    box = Box((inner,))
    inner.append(box)
    with pytest.raises(runtime.Unserialisable):
        encode(box)


def test_too_large_is_refused():
    with pytest.raises(runtime.Unserialisable, match="too large"):
        encode(list(range(runtime.MAX_NODES + 1)))


def test_replacing_module_globals_after_the_codec_is_made_changes_nothing(monkeypatch):
    monkeypatch.setattr(runtime.json, "dumps", lambda *a, **k: "forged")
    monkeypatch.setattr(runtime, "Unserialisable", KeyError)
    assert encode({1, 2}) == ["S", [["i", "1"], ["i", "2"]]]


def test_an_output_names_a_class_made_inside_a_function_which_an_input_cannot():
    def make():
        class Local:
            def __init__(self):
                self.n = 1

        return Local()

    value = make()
    with pytest.raises(runtime.Unserialisable, match="not importable by name"):
        encode(value)
    loose, _ = runtime.make_codec(loose=True)
    written = loose(value)
    assert written[0] == "o" and written[2] == [["n", ["i", "1"]]]
    assert written[1].startswith("~") and written[1].endswith("make.<locals>.Local")
    assert loose(Point(1, 2)) == encode(Point(1, 2))  # what can be found by name is written as before


def test_a_generated_iterator_hands_over_a_lists_items_once_and_keeps_references_in_place():
    """``["it", items]`` is never written by the encoder; generation makes it from a list argument. The items
    inside take the list's place in the reference table (slot 1 here, the outer list being 0), so a later ``@``
    still names what it named."""
    shared = ["l", [["i", "1"]]]
    made = decode(["l", [["it", [shared, ["i", "2"]]], ["@", 2]]])
    iterator, again = made
    assert not isinstance(iterator, list) and next(iterator) is again and next(iterator) == 2
    assert list(iterator) == []  # walked once


def test_a_bare_marker_is_written_by_the_least_global_that_holds_it_and_found_again():
    """``_KWARG_MARK = object()``: a cache key holding it, or an argument a library passes it as, is written by
    name instead of being refused; a marker no module global holds still cannot be written."""
    written, back = round_trip([_MISSING, {"k": _MISSING}])
    assert written == ["l", [["g", f"{__name__}:ALIAS"], ["d", [[["s", "k"], ["g", f"{__name__}:ALIAS"]]]]]]
    assert back[0] is _MISSING and back[1]["k"] is _MISSING
    with pytest.raises(runtime.Unserialisable, match="builtins:object"):
        encode(object())


def test_a_sentinel_of_a_class_made_inside_a_function_is_written_by_its_global():
    """boltons' ``make_sentinel``: the class cannot be found by name, the one instance a module holds can."""
    assert encode(SENTINEL) == ["g", f"{__name__}:SENTINEL"] and decode(["g", f"{__name__}:SENTINEL"]) is SENTINEL
    with pytest.raises(runtime.Unserialisable, match="not importable"):
        encode(type(SENTINEL)())


def test_the_globals_index_warmed_before_a_fork_is_not_built_again(monkeypatch):
    """The in-place runtime calls ``index_globals`` in the test process before it forks a site's child: the
    child then finds a marker without indexing every module again (which cost each child about 10 ms), and a
    module that gained a global since is the only one indexed anew."""
    import types

    codec, _ = runtime.make_codec(loose=True)
    assert codec.index_globals() > 0  # every module, the first time
    assert codec.index_globals() == 0  # nothing changed: nothing indexed again
    assert codec(_MISSING) == ["g", f"{__name__}:ALIAS"]
    grown = types.ModuleType("bench_probe_codec_grown")
    monkeypatch.setitem(sys.modules, grown.__name__, grown)
    grown.MARK = object()
    assert codec.index_globals() == 1
    assert codec(grown.MARK) == ["g", "bench_probe_codec_grown:MARK"]


def test_a_set_of_objects_is_written_alike_whatever_order_it_iterates_in():
    # Each member holds a list; "a" and "c" share one. The numbers a back reference carries must not hang on
    # the set's iteration order (hash order: an object's address), and the reader must find the shared list.
    shared = [1]
    members = (Hashed("a", shared), Hashed("b", [2]), Hashed("c", shared))
    written = []
    for ranks in ((1, 2, 3), (3, 2, 1), (2, 3, 1)):
        RANKS.update(zip("abc", ranks))
        value = set(members)
        written.append(encode([value, shared]))
    assert written[0] == written[1] == written[2]
    back = decode(written[0])
    RANKS.update(zip("abc", (1, 2, 3)))
    by_name = {m.name: m for m in back[0]}
    assert by_name["a"].child is by_name["c"].child is back[1] and by_name["b"].child == [2]


def test_a_str_of_lone_surrogates_is_written_apart_from_the_character_they_spell():
    """JSON writes U+10FE00 and the lone surrogates ``\\udbff\\ude00`` alike, and reads both back as U+10FE00: a
    parser that left a surrogate pair unjoined answered as the one that joined it."""
    joined, pair = "\U0010fe00", "\udbff\ude00"
    assert runs_text(encode(joined)) != runs_text(encode(pair))
    for value in (joined, pair, "a\udc80b"):
        _, back = round_trip(value)
        assert back == value


def runs_text(written) -> str:
    from bench.probes.runs import written_text

    return written_text(json.loads(json.dumps(written)))


class _Compared:
    """An entry of sys.modules that records being compared: the index must look at entries by identity only."""

    compared = 0

    def __eq__(self, other):
        _Compared.compared += 1
        return True

    __hash__ = object.__hash__


def test_a_module_entry_replaced_is_indexed_again_and_never_compared_by_its_own_eq(monkeypatch):
    """A module entry replaced in sys.modules is indexed again, found by identity, never by an ``__eq__`` of
    the object it replaced (code of the work dir can put any object in sys.modules)."""
    import types

    codec, _ = runtime.make_codec(loose=True)
    monkeypatch.setitem(sys.modules, "bench_probe_codec_swapped", _Compared())
    codec.index_globals()
    assert codec.index_globals() == 0
    swapped = types.ModuleType("bench_probe_codec_swapped")
    swapped.MARK = object()
    sys.modules["bench_probe_codec_swapped"] = swapped
    assert codec.index_globals() == 1
    assert codec(swapped.MARK) == ["g", "bench_probe_codec_swapped:MARK"]
    assert _Compared.compared == 0


def test_a_result_and_the_arguments_it_left_are_written_in_one_walk():
    """``together``: an object met in an earlier value is a back reference in a later one (a method's ``self``
    and the context holding it, written once); a value that cannot be written is what ``otherwise`` gives, and
    what its walk entered before it stopped is forgotten, so the numbers after it are those without it."""
    owner = Node("self")
    context = Node("context", owner)
    otherwise = lambda value: ["?", type(value).__name__]  # noqa: E731
    written = encode.together([owner, context], otherwise)
    assert written[0] == encode(owner)
    assert written[1] == ["o", f"{__name__}:Node", [["value", ["s", "context"]], ["next", ["@", 0]]]]
    shared = Node("shared")
    refused = [Node("entered"), object()]  # enters a list and a node before it meets what it cannot write
    after = encode.together([refused, [shared, shared]], otherwise)
    assert after == [["?", "list"], encode([shared, shared])]
    assert after[1][1][1] == ["@", 1]


class _LocalContext(threading.local):
    def __init__(self, lock_file, lifetime=None):
        self.lock_file, self.lifetime = lock_file, lifetime


def test_a_thread_local_object_is_written_with_its_attributes_and_built_again():
    """filelock's lock context is a ``threading.local``: object's own access finds an empty dict there, so
    every lock was written with no ``lifetime``, and a fix defaulting it to True was compared by nothing."""
    written = encode(_LocalContext("a.lock", 1.5))
    assert written[2] == [["lock_file", ["s", "a.lock"]], ["lifetime", ["f", "1.5"]]]
    made = decode(json.loads(json.dumps(written)))
    assert type(made) is _LocalContext and (made.lock_file, made.lifetime) == ("a.lock", 1.5)


def test_a_file_in_memory_is_written_by_what_it_holds_and_where_it_stands_and_built_again():
    """A call given a file writes its answer there: click's ``UsageError.show(file)``. Written as an object, a
    ``StringIO`` held nothing (its text lives in no attribute) and was built again as an empty shell that
    refused every write, so what such a call wrote was never compared."""
    import io

    text = io.StringIO()
    text.write("Error: no such option\r\n")
    text.seek(7)
    data = io.BytesIO(b"\x00\x01")
    written = encode([text, data, text])
    assert written == ["l", [["io", "s", "Error: no such option\r\n", 7], ["io", "b", "0001", 0], ["@", 1]]]
    made = decode(written)
    assert made[0].getvalue() == "Error: no such option\r\n" and made[0].tell() == 7 and made[2] is made[0]
    assert made[1].read() == b"\x00\x01"
    made[0].write("X")  # a file that takes writes, not a shell
    assert made[0].getvalue().startswith("Error: X")
    data.close()
    with pytest.raises(runtime.Unserialisable, match="closed"):
        encode(data)


def test_a_text_file_over_bytes_is_written_with_its_encoding_and_built_again_as_one():
    """click's pager writes to its stream in ``get_best_encoding(stream)``: a wrong fix asked the colour flag
    instead and always wrote UTF-8. The tests' streams were all UTF-8, and written as shells they had no
    encoding at all; the sweep now gives such a file another encoding."""
    import io

    from bench.probes.chosen import chosen_values
    from bench.probes.strategies import Seeds

    stream = NamedStream(io.BytesIO(), encoding="utf-8")
    stream.mode = "w"
    stream.write("é")
    written = encode(stream)
    assert written[0] == "tw" and written[2:5] == ["utf-8", "strict", ["io", "b", "c3a9", 2]]
    assert written[5] == [["mode", ["s", "w"]]]
    made = decode(written)
    assert type(made) is NamedStream and made.encoding == "utf-8" and made.mode == "w"
    latin = decode(chosen_values(written, Seeds(""))[0])
    latin.write("é")
    latin.flush()
    assert latin.encoding == "latin-1" and latin.buffer.getvalue() == b"\xc3\xa9\xe9"
    shut = io.TextIOWrapper(io.BytesIO())
    shut.close()
    with pytest.raises(runtime.Unserialisable, match="closed"):
        encode(shut)
