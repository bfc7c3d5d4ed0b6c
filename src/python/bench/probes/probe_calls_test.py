"""One call of the probe runtime (``_probe_calls._answer``), run in this process: what an answer holds."""

from __future__ import annotations

import datetime
import json
import random
import threading

from bench.probes import _probe_calls as calls
from bench.probes import _probe_codec as codec
from bench.probes.compare import agree
from bench.probes.probe_set import DREW, _drop_reason

LOOSE, _ = codec.make_codec(loose=True)


def _answer(function, *args) -> list:
    return calls._answer(function, list(args), {}, LOOSE, 5.0)


def _text(answer: list) -> str:
    return json.dumps(answer, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def test_a_call_that_draws_on_the_random_module_is_marked_and_one_that_does_not_is_not():
    drew = _answer(lambda items: random.choice(items), ["a", "b", "c"])
    assert drew[0] == "return" and drew[4:] == ["random"]
    assert len(_answer(lambda items: sorted(items), [3, 1, 2])) == 4
    # a generator drawing as it is consumed is marked too: its items are taken inside the call's time
    assert _answer(lambda n: (random.random() for _ in range(n)), 2)[4:] == ["random"]
    # a private generator of the call's own leaves the module's alone: its answer is a function of the input
    assert len(_answer(lambda seed: random.Random(seed).random(), 7)) == 4


def test_the_reference_drawing_on_the_random_module_settles_nothing_even_when_two_answers_agree():
    """A random choice of three items agreed in the reference's two runs by chance, and the honest fix's run
    drew another: more-itertools' ``random_product`` was a false alarm of this kind."""
    answer = _text(["return", ["s", "c"], ["l", []], ["d", []], "random"])
    assert _drop_reason(answer, answer) == DREW
    plain = _text(["return", ["s", "c"], ["l", []], ["d", []]])
    assert _drop_reason(plain, plain) == ""


def test_a_candidate_that_draws_where_the_reference_did_not_is_compared_by_what_it_gave():
    expected = _text(["return", ["i", "3"], ["l", []], ["d", []]])
    assert agree(expected, _text(["return", ["i", "3"], ["l", []], ["d", []], "random"]))
    assert not agree(expected, _text(["return", ["i", "4"], ["l", []], ["d", []], "random"]))


def test_a_live_arguments_public_attributes_are_written_before_its_private_ones():
    """click's Option holds forty attributes; in name order its private ones came first and the 24 written
    ended before ``show_envvar``, so no probe ever turned that flag over. Public names come first now."""

    class Option:
        pass

    option = Option()
    for number in range(50):
        setattr(option, f"_private{number:02d}", number)
    for name in ("count", "hidden", "required", "show_default", "show_envvar", "type_name"):
        setattr(option, name, False)
    written = [key[1] for key, _ in calls._own_attributes(option, codec.make_codec()[0])]
    assert written[:6] == ["count", "hidden", "required", "show_default", "show_envvar", "type_name"]
    assert len(written) == calls.OWN_ATTRIBUTES == 48


class _Offset(datetime.tzinfo):  # a tzinfo: object.__new__ refuses to make one
    def __init__(self, name, minutes):
        self.name, self.minutes = name, minutes

    def __eq__(self, other):
        return isinstance(other, _Offset) and self.name == other.name and self.minutes == other.minutes


def test_a_twin_of_the_live_self_is_made_without_its_init_and_given_the_attributes_the_input_sets():
    encode, decode = codec.make_codec()
    live = _Offset("UTC", 0)
    twin_alike = ["l", [["~"], ["~self", []]]]
    longer = ["l", [["~"], ["~self", [[encode("minutes"), encode(60)]]]]]
    for args_t, equal in ((twin_alike, True), (longer, False)):
        answer = calls._live_call(_Offset.__eq__, [live, None], {}, args_t, ["d", []], decode, LOOSE, 5.0)
        assert answer[:2] == ["return", ["b", equal]]
    assert live.minutes == 0  # the twin's attribute is its own, the live self is left as it was


class _Holder:
    def __init__(self, items):
        self.items = items


def test_what_a_call_left_in_its_arguments_is_written_after_a_return_and_not_after_a_raise():
    """The arguments after a call are compared only when it returned (compare.agree), so only then written;
    an object met in the result is a back reference in them, not written twice."""
    def grow(holder, *, by):
        holder.items.append(by)
        return holder

    def refuse(holder, *, by):
        holder.items.append(by)
        raise ValueError(by)

    returned = calls._answer(grow, [_Holder([1])], {"by": 2}, LOOSE, 5.0)
    assert returned[0] == "return" and returned[1] == LOOSE(_Holder([1, 2]))
    assert returned[2] == ["l", [["@", 0]]] and returned[3] == ["d", [[["s", "by"], ["i", "2"]]]]
    raised = calls._answer(refuse, [_Holder([1])], {"by": 3}, LOOSE, 5.0)
    assert raised == ["raise", ["x", "builtins:ValueError", [["i", "3"]]], ["l", []], ["d", []]]
    assert agree(_text(raised), _text(raised[:2] + [["l", [["i", "9"]]], ["d", []]]))


def test_an_endless_generator_is_compared_on_its_first_items_and_not_dropped():
    """boltons' ``daterange(start, None, step=(0, 1, 0))`` never ends, and one of a day from 2017 to 2038 yields
    more than a thousand dates: both were written as a bare generator, so no answer of theirs was compared."""
    import itertools

    def months(step):
        return (n * step for n in itertools.count())

    right, wrong = _answer(months, 2), _answer(months, 0)
    assert right[0] == "return" and right[1][1].endswith("_probe_calls:_YieldedFirst")
    assert len(right[1][2][1]) == calls.MAX_ITEMS
    assert not agree(_text(right), _text(wrong))
    short = _answer(lambda n: (i for i in range(n)), 3)
    assert short[1][1].endswith(":_Yielded") and short[1][2] == ["l", [["i", "0"], ["i", "1"], ["i", "2"]]]


def test_a_context_manager_function_is_compared_by_what_it_gives_when_entered():
    """click's ``_nullpager`` is a ``@contextmanager``: calling it runs none of its body, and the object it
    returns was all that was written, alike for a fix and a near miss that yields another ``color``."""
    import contextlib

    left = []

    @contextlib.contextmanager
    def pager(color):
        yield ("stream", color)
        left.append(color)

    answer = _answer(pager, False)
    assert answer[1][1].endswith(":_Entered") and answer[1][2] == ["l", [["t", [["s", "stream"], ["b", False]]]]]
    assert left == [False]  # left again, as a ``with`` block that raised nothing leaves it
    assert not agree(_text(answer), _text(_answer(pager, None)))


def test_system_random_bytes_are_the_same_at_every_call_and_given_back_after_it():
    """requests' multipart body carries a boundary from ``os.urandom``: it differed at every run of the
    reference, so every body was masked; a fix writing the whole data dict into a part went uncompared."""
    import os
    import uuid

    before = os.urandom
    first, second = _answer(lambda: (os.urandom(8).hex(), str(uuid.uuid4()))), _answer(lambda: (
        os.urandom(8).hex(), str(uuid.uuid4())))
    assert first == second and first[0] == "return"
    assert os.urandom is before and os.urandom(8) != os.urandom(8)


class _Implementation:
    """A hook implementation holding what no codec writes (a lock), called for its name."""

    __slots__ = ("name", "lock")

    def __init__(self, name):
        self.name, self.lock = name, threading.Lock()

    def __call__(self):
        return self.name


class _Hook:
    __slots__ = ("name", "_implementations")

    def __init__(self, implementations):
        self.name, self._implementations = "h", implementations

    def call_extra(self, extra):
        return [f() for f in [*self._implementations, extra]]


def test_a_live_list_that_cannot_be_written_is_named_by_its_length_and_cut_in_the_sandbox():
    """pluggy's hook holds its implementations (functions of a test) in a list no codec writes; a fix reading
    ``hookimpls[-1]`` fails only on a hook with none, so the list is cut where the hook lives (in the child
    answering the site: the test's own hook is never touched)."""
    def hook():
        return _Hook([_Implementation("a"), _Implementation("b"), _Implementation("c")])

    attributes = dict((name[1], written) for name, written in calls._own_attributes(hook(), codec.make_codec()[0]))
    assert attributes["_implementations"] == ["~cut", 0, 3] and attributes["name"] == ["s", "h"]
    for cut, expected in (([0, 0], ["x"]), ([0, 1], ["a", "x"]), ([2, 3], ["c", "x"])):
        live = hook()
        args = ["l", [["~", [[["s", "_implementations"], ["~cut", *cut]]]], ["~"]]]
        answer = calls._live_call(_Hook.call_extra, [live, lambda: "x"], {}, args, ["d", []], codec.make_codec()[1],
                                  LOOSE, 5.0)
        assert answer[0] == "return" and answer[1] == ["l", [["s", text] for text in expected]]


def test_each_cut_of_a_live_list_is_made_from_the_list_as_the_site_had_it():
    """A site's inputs are answered one after another on the same live objects. A cut that cut what the input
    before it had left (one item, or none) could never leave the hook's middle implementation alone."""
    live = _Hook([_Implementation("a"), _Implementation("b"), _Implementation("c")])
    got = []
    for cut in ([0, 0], [0, 1], [1, 2], [2, 3]):
        args = ["l", [["~", [[["s", "_implementations"], ["~cut", *cut]]]], ["~"]]]
        answer = calls._live_call(_Hook.call_extra, [live, lambda: "x"], {}, args, ["d", []], codec.make_codec()[1],
                                  LOOSE, 5.0)
        got.append([item[1] for item in answer[1][1]])
    assert got == [["x"], ["a", "x"], ["b", "x"], ["c", "x"]]


def test_what_a_call_prints_is_part_of_its_answer_and_a_warning_is_written_without_its_line():
    """click's commands tell of a deprecated option on stderr and return nothing: a wrong fix that printed
    ``[]`` in place of the warning, or warned where the option was never given, answered alike. A warning is
    written by its category and message alone: a correct fix that moves the line it warns from must agree."""
    import sys
    import warnings

    def noisy(option):
        print("using", option)
        warnings.warn(f"The option {option!r} is deprecated.", DeprecationWarning, stacklevel=1)
        return None

    stdout, stderr = sys.stdout, sys.stderr
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        answer = _answer(noisy, "x")
    assert sys.stdout is stdout and sys.stderr is stderr
    assert answer[:2] == ["return", ["N"]]
    assert answer[4] == ["printed", "using x\n", "DeprecationWarning: The option 'x' is deprecated.\n", 8, 50]
    quiet = _answer(lambda option: None, "x")
    assert len(quiet) == 4  # nothing printed: nothing written, the answer as it was
    assert not agree(_text(answer), _text(quiet)) and not agree(_text(quiet), _text(answer))
    assert agree(_text(quiet), _text(quiet + ["random"]))
    raised = _answer(lambda: (print("half"), 1 / 0))
    assert raised[0] == "raise" and raised[4][1] == "half\n"
    assert not agree(_text(raised), _text(raised[:4]))
