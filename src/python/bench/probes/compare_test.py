from __future__ import annotations

import json

import pytest

from bench.probes.compare import agree, equal, masked, render_call, render_output


def out(kind, value, args=("l", []), kwargs=("d", [])):
    return json.dumps([kind, value, list(args), list(kwargs)])


@pytest.mark.parametrize("a, b, same", [
    (["f", "0.1"], ["f", repr(0.1 + 1e-17)], True),
    (["f", "1.0"], ["f", "1.0000001"], False),
    (["f", "nan"], ["f", "nan"], True),
    (["f", "inf"], ["f", "-inf"], False),
    (["i", "1"], ["f", "1.0"], False),  # the type is part of the value
    (["d", [[["s", "a"], ["i", "1"]], [["s", "b"], ["i", "2"]]]],
     ["d", [[["s", "b"], ["i", "2"]], [["s", "a"], ["i", "1"]]]], True),  # a dict's order is not compared
    (["l", [["i", "1"], ["i", "2"]]], ["l", [["i", "2"], ["i", "1"]]], False),  # a list's is
    (["o", "m:C", [["x", ["i", "1"]], ["y", ["i", "2"]]]], ["o", "m:C", [["y", ["i", "2"]], ["x", ["i", "1"]]]], True),
    (["o", "m:C", [["x", ["i", "1"]]]], ["o", "m:D", [["x", ["i", "1"]]]], False),
    (["u", "m:S", ["s", "a"], []], ["s", "a"], False),  # a subclass is not its base
])
def test_equal(a, b, same):
    assert equal(a, b) is same


def test_a_raise_agrees_only_with_the_same_exception_and_arguments():
    want = out("raise", ["x", "m:Error", [["s", "hyphen at 3"]]])
    assert agree(want, out("raise", ["x", "m:Error", [["s", "hyphen at 3"]]], args=("l", [["i", "9"]])))
    assert not agree(want, out("raise", ["x", "m:Error", [["s", "starts with a hyphen"]]]))
    assert not agree(want, out("return", ["b", True]))


def test_a_return_compares_what_the_call_left_in_its_arguments():
    want = out("return", ["N"], args=("l", [["l", [["i", "1"]]]]))
    assert agree(want, out("return", ["N"], args=("l", [["l", [["i", "1"]]]])))
    assert not agree(want, out("return", ["N"], args=("l", [["l", []]])))


def test_no_answer_never_agrees():
    assert not agree(out("return", ["N"]), "")
    assert not agree(out("return", ["N"]), json.dumps(["timeout"]))


def test_rendering_for_people():
    call = render_call("shift", json.dumps(["l", [["s", "Hello"], ["i", "3"]]]), json.dumps(["d", [[["s", "k"], ["b", True]]]]))
    assert call == "shift('Hello', 3, k=True)"
    assert render_output(out("raise", ["x", "idna.core:IDNAError", [["s", "bad"]]])) == "raises IDNAError('bad')"
    assert render_output("") == "no answer (the replay stopped before this input)"


def _out(*parts) -> str:
    return json.dumps(["return", *parts], sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def test_what_the_reference_answers_differently_each_run_is_masked_and_the_rest_still_checked():
    """A cache key carrying ``hash()`` of a type: the key's elements are fixed, its hash value is not."""
    def key(elements, hashvalue):
        return ["u", "m:_HashedKey", ["l", elements], [["hashvalue", ["i", hashvalue]]]]

    first = _out(key([["s", "a"], ["g", "m:_KWARG_MARK"]], "11"), ["l", []], ["d", []])
    second = _out(key([["s", "a"], ["g", "m:_KWARG_MARK"]], "97"), ["l", []], ["d", []])
    expected = masked(first, second)
    assert json.loads(expected)[1] == key([["s", "a"], ["g", "m:_KWARG_MARK"]], "x")[:3] + [[["hashvalue", ["*"]]]]
    assert agree(expected, _out(key([["s", "a"], ["g", "m:_KWARG_MARK"]], "5"), ["l", []], ["d", []]))
    assert not agree(expected, _out(key([["s", "a"], ["b", False]], "11"), ["l", []], ["d", []]))
    assert not agree(expected, _out(["*"], ["l", []], ["d", []]))  # a wildcard the candidate writes matches nothing


@pytest.mark.parametrize("first, second", [
    (_out(["i", "1"], ["l", []], ["d", []]), _out(["i", "2"], ["l", []], ["d", []])),  # the whole value varies
    (_out(["i", "1"], ["l", []], ["d", []]), json.dumps(["raise", ["x", "m:E", []]])),  # the kind varies
    (_out(["d", [[["s", "a"], ["i", "1"]]]], ["l", []], ["d", []]),
     _out(["d", [[["s", "b"], ["i", "1"]]]], ["l", []], ["d", []])),  # a key varies: the whole dict is masked
])
def test_nothing_is_kept_where_the_whole_answer_varies(first, second):
    assert masked(first, second) == ""


def test_what_the_reference_prints_differently_each_run_is_masked_and_what_it_never_prints_stays_unwritten():
    from bench.probes.compare import NOTHING_PRINTED, masked, render_output

    def text(answer):
        return json.dumps(answer, sort_keys=True, separators=(",", ":"), ensure_ascii=True)

    quiet = ["return", ["N"], ["l", []], ["d", []]]
    assert masked(text(quiet), text(quiet)) == text(quiet)  # no printed element appears where none was written
    first = quiet + [["printed", "took 0.1 s\n", "", 11, 0]]
    second = quiet + [["printed", "took 0.2 s\n", "", 11, 0]]
    kept = masked(text(first), text(second))
    assert json.loads(kept)[4] == ["*"]
    assert agree(kept, text(second)) and agree(kept, text(quiet + [NOTHING_PRINTED]))
    shown = render_output(text(quiet + [["printed", "", "Warning: x\n", 0, 11]]))
    assert shown == "None; writes to stderr 'Warning: x\\n'"
