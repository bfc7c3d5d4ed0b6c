"""One call of the probe runtime (``_probe_calls._answer``), run in this process: what an answer holds."""

from __future__ import annotations

import datetime
import json
import random

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
