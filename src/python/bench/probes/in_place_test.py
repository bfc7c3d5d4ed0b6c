"""In-place probes, host side: reading an in-place run's numbered answers, the inputs a site gets, and the
strategies that vary a live argument's own attributes."""

from __future__ import annotations

import json

from bench.probes import in_place
from bench.probes.generate import generate
from bench.probes.strategies import Seeds, strategy_for
from bench.probes.probe_set import ProbeTarget
from bench.probes.runs import read_numbered, written_text


def line(number, answer) -> bytes:
    return (json.dumps([number, answer], sort_keys=True, separators=(",", ":")) + "\n").encode()


def test_answers_are_read_by_number_in_any_order():
    data = line(1, ["return", ["i", "2"], ["l", []], ["d", []]]) + line(0, ["raise", ["x", "builtins:KeyError", []]])
    outputs, problem = read_numbered(data, 2)
    assert problem == ""
    assert json.loads(outputs[0])[0] == "raise" and json.loads(outputs[1]) == ["return", ["i", "2"], ["l", []],
                                                                             ["d", []]]


def test_a_site_never_reached_leaves_its_inputs_unanswered():
    outputs, problem = read_numbered(line(0, ["return", ["N"], ["l", []], ["d", []]]), 3)
    assert outputs[1:] == ("", "") and problem == "2 of 3 in-place inputs never reached"


def test_a_repeated_out_of_range_or_malformed_line_makes_the_run_unusable():
    ok = line(0, ["return", ["N"], ["l", []], ["d", []]])
    assert read_numbered(ok + ok, 2) == ((), "in-place outputs repeated or out of range")
    assert read_numbered(line(5, ["return", ["N"]]), 2) == ((), "in-place outputs repeated or out of range")
    assert read_numbered(b"forged\n", 2) == ((), "an in-place output line is malformed")
    assert read_numbered(line(True, ["return", ["N"]]), 2)[1] == "in-place outputs repeated or out of range"


SELF = ["~", [[["s", "limit"], ["i", "3"]], [["s", "name"], ["s", "ab"]]]]


def test_a_live_self_has_one_own_attribute_drawn_anew():
    from hypothesis import given, settings

    seen = []

    @settings(max_examples=40, derandomize=True, database=None)
    @given(strategy_for(SELF, Seeds(alphabet="abc")))
    def collect(value):
        seen.append(value)

    collect()
    assert all(v[0] == "~" and len(v[1]) == 1 and v[1][0][0] in (["s", "limit"], ["s", "name"]) for v in seen)
    assert {v[1][0][0][1] for v in seen} == {"limit", "name"}


def test_a_method_site_varies_its_self_and_keeps_what_cannot_be_written_live():
    args = written_text(["l", [SELF, ["~"], ["i", "7"]]])
    found = generate([(args, written_text(["d", []]))], method=True, limit=12)
    assert found
    for new_args, _ in found:
        positional = json.loads(new_args)[1]
        assert positional[0][0] == "~" and positional[1] == ["~"] and positional[2][0] in ("i", "f")
    assert any(json.loads(a)[1][0] != ["~"] for a, _ in found)  # self's attributes were varied


def test_a_set_keeps_its_tag_and_the_codec_order():
    from hypothesis import given, settings

    @settings(max_examples=30, derandomize=True, database=None)
    @given(strategy_for(["S", [["s", "a"], ["s", "b"]]], Seeds(alphabet="abc")))
    def check(value):
        assert value[0] == "S"
        assert value[1] == sorted(value[1], key=written_text) and len(set(map(written_text, value[1]))) == len(value[1])

    check()


def test_every_site_gets_its_call_as_made_and_inputs_around_what_could_be_written():
    targets = (ProbeTarget("m.py", "Box.put", "m", 3, 3), ProbeTarget("m.py", "free", "m", 1, 1))
    put = (0, "t.py::test_put (call)", "ab12", 1, written_text(["l", [SELF, ["s", "x"]]]), written_text(["d", []]))
    opaque = (1, "t.py::test_free (call)", "cd34", 2, written_text(["l", [["~"]]]), written_text(["d", []]))
    probes = in_place.candidates(targets, [put, opaque], {}, generate=generate)
    observed = [p for p in probes if p.origin == "observed"]
    assert [(p.target, p.occurrence, p.args) for p in observed] == [
        (0, 1, written_text(["l", [["~"], ["~"]]])), (1, 2, written_text(["l", [["~"]]]))]
    generated = [p for p in probes if p.origin == "generated"]
    assert generated and all(p.target == 0 for p in generated)  # nothing of the opaque call can be varied
    assert len(generated) <= in_place.site_inputs(1)


def test_a_target_reached_at_few_sites_gives_each_more_inputs_up_to_a_cap():
    """pluggy's ``call_extra`` is reached in one test: its one site had 32 inputs, a fifth of them from the
    sweep, where a target reached at sixteen sites had 512."""
    assert in_place.site_inputs(in_place.SITES_PER_TARGET) == in_place.INPUTS_PER_SITE
    assert in_place.site_inputs(8) == 2 * in_place.INPUTS_PER_SITE
    assert in_place.site_inputs(1) == in_place.site_inputs(2) == in_place.MAX_INPUTS_PER_SITE
    targets = (ProbeTarget("m.py", "Box.put", "m", 3, 3),)
    site = (0, "t.py::test_put (call)", "ab12", 1, written_text(["l", [SELF, ["s", "x"]]]), written_text(["d", []]))
    seen = []

    def counting(observed, **options):
        seen.append(options["limit"])
        return []

    in_place.candidates(targets, [site], {}, generate=counting)
    in_place.candidates(targets, [site] * 16, {}, generate=counting)
    assert seen == [in_place.MAX_INPUTS_PER_SITE] + [in_place.INPUTS_PER_SITE] * 16


def test_an_input_the_reference_answers_unevenly_stays_unchecked_where_later_inputs_of_its_site_need_it():
    from dataclasses import replace

    def probe(site, n, expected):
        return in_place.InPlaceProbe(0, f"t.py::test_{site} (call)", "m", 1, f"[{n}]", "[]", "generated", expected)

    ok = '["return",["N"],["l",[]],["d",[]]]'
    kept = in_place._trimmed([probe("a", 0, ok), probe("a", 1, ""), probe("a", 2, ok), probe("a", 3, ""),
                              probe("b", 0, ""), probe("b", 1, "")])
    assert [(p.test[len("t.py::test_")], p.args, p.checked) for p in kept] == [("a", "[0]", True), ("a", "[1]", False),
                                                               ("a", "[2]", True)]
    from bench.probes.probe_set import ProbeSet, ProbeTarget

    probe_set = ProbeSet("t", "16", (ProbeTarget("m.py", "f", "m", 1, 1),), (), (), "", kept, ("t.py",))
    assert probe_set.size == 2 and probe_set.count("generated") == 2
    from bench.probes.verify import _wrong

    # the unchecked input is sent but never compared: what it gives decides nothing
    assert _wrong(probe_set, (ok, '["timeout"]', ok)) == []
    assert _wrong(probe_set, (ok, ok, '["timeout"]')) == [2]
    assert replace(kept[1], expected=ok).checked


def test_the_sites_of_one_target_share_out_the_sweep_instead_of_each_asking_its_first_questions():
    """click-3004's fifteen ``get_help_extra`` sites each turned over the same first flags of the option in
    place, and ``required`` (late in the order) was never set: the wrong fix of the required branch went
    unseen. The n-th site's sweep goes on where the one before left off."""
    flags = [[["s", f"flag{k:02d}"], ["b", False]] for k in range(40)]
    live = ["~", flags]
    targets = (ProbeTarget("m.py", "Opt.extra", "m", 40, 40),)
    sites = [(0, f"t.py::test_{k} (call)", "ab12", 1, written_text(["l", [live]]), written_text(["d", []]))
             for k in range(15)]
    probes = in_place.candidates(targets, sites, {}, generate=generate)
    turned = {key[1] for p in probes for item in json.loads(p.args)[1] if item[0] == "~" and len(item) > 1
              for key, value in item[1] if value == ["b", True]}
    assert turned == {f"flag{k:02d}" for k in range(40)}


def test_a_site_whose_generation_fails_keeps_its_observed_call_and_the_other_sites_their_inputs():
    """pyflakes' and sqlparse's in-place generation met a shape Hypothesis refused at one site, and the whole
    task lost every in-place input, observed calls too: its set was empty and said the reference never
    answered alike twice. The refusal now costs that one site its generated inputs, and is counted."""
    targets = (ProbeTarget("m.py", "Box.put", "m", 3, 3),)
    sites = [(0, f"t.py::test_{k} (call)", "ab12", 1, written_text(["l", [SELF, ["s", "x"]]]),
              written_text(["d", []])) for k in range(2)]

    def refusing_the_first(observed, **options):
        if options["turn"] == 0:
            raise ValueError("a shape refused")
        return generate(observed, **options)

    dropped: dict = {}
    probes = in_place.candidates(targets, sites, {}, generate=refusing_the_first, dropped=dropped)
    assert [p.test for p in probes if p.origin == "observed"] == ["t.py::test_0 (call)", "t.py::test_1 (call)"]
    assert {p.test for p in probes if p.origin == "generated"} == {"t.py::test_1 (call)"}
    assert dropped == {"in place: generation failed: ValueError": 1}


def test_the_first_site_of_each_test_the_change_is_about_is_probed_besides_the_even_spread():
    """soupsieve's ``select`` had 216 sites; the even spread passed by ``test_select_limit``'s, the task's
    fail_to_pass test, whose two matches alone tell a limit that stops one match early from the right one. It is
    probed besides the spread, which keeps its sites (regex_lite's kill was at one of them)."""
    sites = [(0, f"t.py::test_{k:03d} (call)", "ab12", 1, written_text(["l", [["~"]]]), written_text(["d", []]))
             for k in range(100)]
    assert in_place.chosen_sites(sites, set()) == (sites[::7][:16], [])
    spread, firsts = in_place.chosen_sites(sites, {"t.py::test_037", "t.py::test_035", "t.py::test_nowhere"})
    assert spread == sites[::7][:16] and firsts == [sites[37]]  # test_035's site is in the spread already
    targets = (ProbeTarget("m.py", "Box.put", "m", 3, 3),)
    probes = in_place.candidates(targets, sites, {}, generate=generate, preferred=["t.py::test_037"])
    assert {p.test for p in probes} == {s[1] for s in sites[::7][:16]} | {sites[37][1]}


def test_a_target_at_few_sites_gets_more_inputs_only_where_the_tasks_cap_leaves_room():
    """ttl_cache's many methods, each given more inputs, passed the cap of 1,500: the last sites were cut off,
    and the one whose expiry killed a near miss with them. Where the extra inputs would not all fit, every site
    keeps the count a target with its full sites has."""
    targets = tuple(ProbeTarget("m.py", f"Box.put{k}", "m", 3, 3) for k in range(20))
    seen = []

    def counting(observed, **options):
        seen.append(options["limit"])
        return []

    few = [(k, f"t.py::test_{k} (call)", "ab12", 1, written_text(["l", [SELF, ["s", "x"]]]), written_text(["d", []]))
           for k in range(20)]
    in_place.candidates(targets, few, {}, generate=counting)
    assert seen == [in_place.INPUTS_PER_SITE] * 20  # 20 sites of 129 would pass the cap
    assert in_place._what_fits({k: ([few[k]] * 16, [few[k]] * 4) for k in range(3)}) == (False, False)
    seen.clear()
    in_place.candidates(targets, few[:5], {}, generate=counting)
    assert seen == [in_place.MAX_INPUTS_PER_SITE] * 5
