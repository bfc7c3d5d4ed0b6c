"""Two numbers of one call made equal: the clock at the expiry a cache keeps."""

from __future__ import annotations

import json

from bench.probes.equal_numbers import equal_number_changes
from bench.probes.runs import written_text


def _live_cache(now: str, expiry: str) -> str:
    clock = ["o", "test_ttlcache:FakeClock", [["now", ["f", now]]]]
    entries = ["od", [[["s", "old"], ["t", [["i", "0"], ["f", expiry]]]]]]
    return written_text(["l", [["~", [[["s", "_clock"], clock], [["s", "_entries"], entries]]], ["s", "old"]]])


def test_a_clock_read_inside_a_live_argument_is_set_to_the_expiry_it_holds_and_the_expiry_to_the_clock():
    """ttl_cache's ``key in cache`` is ``clock() < expiry``; a fix writing ``<=`` differs only where the two meet,
    and the tests' clocks stop before or after it. Only the attribute changed travels with the live ``self``."""
    found = {a for _, _, (a, _) in equal_number_changes(
        _live_cache("5.0", "10.0"), written_text(["d", []]))}
    clock_at_expiry = ["~", [[["s", "_clock"], ["o", "test_ttlcache:FakeClock", [["now", ["f", "10.0"]]]]]]]
    expiry_at_clock = ["~", [[["s", "_entries"], ["od", [[["s", "old"], ["t", [["i", "0"], ["f", "5.0"]]]]]]]]]
    selves = [json.loads(a)[1][0] for a in found]
    assert clock_at_expiry in selves and expiry_at_clock in selves
    assert all(json.loads(a)[1][1] == ["s", "old"] for a in found)


def test_numbers_are_made_equal_within_their_type_only_and_a_call_of_one_number_is_left_alone():
    ints_and_floats = written_text(["l", [["i", "2"], ["f", "2.5"], ["i", "7"]]])
    calls = {a for _, _, (a, _) in equal_number_changes(ints_and_floats, written_text(["d", []]))}
    assert calls == {written_text(["l", [["i", "7"], ["f", "2.5"], ["i", "7"]]]),
                     written_text(["l", [["i", "2"], ["f", "2.5"], ["i", "2"]]])}
    assert not list(equal_number_changes(written_text(["l", [["i", "3"], ["s", "3"]]]), written_text(["d", []])))
