"""Whole-call changes: one kind of value changed alike everywhere in an observed call."""

from __future__ import annotations

import json

from bench.probes._probe_codec import make_codec
from bench.probes.runs import written_text
from bench.probes.whole_call import whole_changes

encode, decode = make_codec()


def _calls(args: tuple, kwargs: dict, first: int = 0) -> dict:
    found = whole_changes(written_text(encode(list(args))), written_text(encode(kwargs)), first)
    return {place[1]: (tuple(decode(json.loads(a))), decode(json.loads(k))) for place, _, (a, k) in found}


def test_labels_become_small_ints_the_same_one_wherever_a_label_is():
    """A graph's nodes given as ints can equal its costs: shortest_path([(1, 2, 1)], 1, 2)."""
    calls = _calls(([("a", "b", 1), ("b", "c", 4)], "a"), {"goal": "c"})
    assert calls["labels as numbers"] == (([(1, 2, 1), (2, 3, 4)], 1), {"goal": 3})


def test_every_number_is_shifted_below_zero_together_and_keeps_its_type():
    calls = _calls(([(0, 10), (2.5, 3)],), {"step": 1})
    assert calls["shifted below zero"] == (([(-11, -1), (-8.5, -8)],), {"step": -10})


def test_a_dicts_keys_are_labels_and_the_places_before_first_are_left_alone():
    args = json.dumps(["l", [["i", "7"], ["d", [[["s", "x"], ["i", "3"]]]], ["b", True]]])
    found = {place[1]: json.loads(a) for place, _, (a, _) in whole_changes(args, json.dumps(["d", []]), 1)}
    assert found["labels as numbers"] == ["l", [["i", "7"], ["d", [[["i", "1"], ["i", "3"]]]], ["b", True]]]
    assert found["shifted below zero"] == ["l", [["i", "7"], ["d", [[["s", "x"], ["i", "-1"]]]], ["b", True]]]


def test_an_in_place_sites_call_is_not_changed_whole():
    """A site's few inputs go to its live arguments and places (bench.probes.in_place)."""
    args = json.dumps(["l", [["~"], ["s", "a"], ["i", "3"]]])
    assert list(whole_changes(args, json.dumps(["d", []]), 1)) == []


def test_a_call_with_nothing_of_a_kind_gives_no_change_of_that_kind():
    assert set(_calls((True, None), {})) == set()
    assert set(_calls(("a",), {})) == {"labels as numbers"}
    assert set(_calls((float("nan"),), {})) == set()
