"""The parts of the adequacy pass that decide what is mutated and what counts as caught."""

from __future__ import annotations

from types import SimpleNamespace

from bench.gate.adequacy import Adequacy, Survivor, caught_early, changed_lines, killed, near_misses_of


def test_changed_lines_are_the_fixed_files_new_or_rewritten_lines():
    before = "a\nb\nc\nd\n"
    assert changed_lines(before, "a\nB\nc\nd\n") == {2}
    assert changed_lines(before, "a\nb\nnew\nc\nd\n") == {3}
    assert changed_lines(before, "a\nc\nd\n") == {2}  # b deleted: the line now in its place
    assert changed_lines(before, before) == set()


FIXED = "def clip(x, low, high):\n    if x < low:\n        return low\n    if x > high:\n        return high\n    return x\n"


def _trees(tmp_path):
    fixed, base = tmp_path / "fixed", tmp_path / "base"
    for tree, text in ((fixed, FIXED), (base, FIXED.replace("x > high", "x < high"))):
        tree.mkdir()
        (tree / "clip.py").write_text(text)
    spec = SimpleNamespace(task_id="task-1", mutation=None, source_files=("clip.py",))
    return spec, fixed, base


def test_near_misses_are_a_seeded_verified_subset_in_source_order_and_the_same_as_verifying_all(tmp_path):
    from bench.mutate.engine import near_misses

    spec, fixed, base = _trees(tmp_path)
    made, everything = near_misses_of(spec, fixed, base, limit=100)
    assert (made, len(everything)) == (14, 14)  # every proposed site of clip parses as intended
    assert [c.diff for c in everything] == [c.diff for c in sorted(
        near_misses(fixed, "clip.py", {4}), key=lambda c: (c.site.start, c.site.end, c.site.operator, c.site.replacement))]
    made, five = near_misses_of(spec, fixed, base, limit=5)
    assert made == 14 and len(five) == 5
    assert [c.site.start for c in five] == sorted(c.site.start for c in five)
    assert {c.diff for c in five} <= {c.diff for c in everything}
    assert [c.diff for c in near_misses_of(spec, fixed, base, limit=5)[1]] == [c.diff for c in five]  # stable


def _run(outcomes: dict[str, str], *, timed_out: bool = False, report: bool = True):
    found = SimpleNamespace(outcomes=[SimpleNamespace(test_id=t, outcome=o) for t, o in outcomes.items()])
    return SimpleNamespace(timed_out=timed_out, report=found if report else None)


def test_a_near_miss_is_caught_by_any_target_not_passing_or_by_no_verdict():
    targets = ("t.py::a", "t.py::b")
    assert not killed(_run({"t.py::a": "passed", "t.py::b": "passed", "t.py::other": "failed"}), targets)
    assert killed(_run({"t.py::a": "passed", "t.py::b": "failed"}), targets)
    assert killed(_run({"t.py::a": "passed"}), targets)  # a target that did not run
    assert killed(_run({"t.py::a": "passed", "t.py::b": "passed"}, timed_out=True), targets)
    assert killed(_run({}, report=False), targets)


def test_a_run_of_the_fail_to_pass_tests_alone_decides_only_a_kill_it_saw():
    f2p = ("t.py::a", "t.py::b")
    assert caught_early(_run({"t.py::a": "passed", "t.py::b": "failed"}), f2p)
    assert caught_early(_run({}, timed_out=True), f2p)
    assert not caught_early(_run({"t.py::a": "passed", "t.py::b": "passed"}), f2p)  # the whole run decides
    assert not caught_early(_run({"t.py::a": "failed"}), f2p)  # b not reported: an id it could not find
    assert not caught_early(_run({}, report=False), f2p)


def test_the_record_round_trips_and_scores_what_it_ran():
    record = Adequacy("t", "1", 9, 4, 3, (Survivor("m.py", "comparison", 3, 10, 11),))
    assert Adequacy.from_json(record.to_json()) == record
    assert record.score == 0.75
    assert Adequacy("t", "1", 0, 0, 0, (), "no near miss: no operator applies in a function enclosing the change").score is None
