"""The parts of the adequacy pass that decide what is mutated and what counts as caught."""

from __future__ import annotations

from types import SimpleNamespace

from bench.gate.adequacy import Adequacy, Survivor, changed_lines, choose, killed


def test_changed_lines_are_the_fixed_files_new_or_rewritten_lines():
    before = "a\nb\nc\nd\n"
    assert changed_lines(before, "a\nB\nc\nd\n") == {2}
    assert changed_lines(before, "a\nb\nnew\nc\nd\n") == {3}
    assert changed_lines(before, "a\nc\nd\n") == {2}  # b deleted: the line now in its place
    assert changed_lines(before, before) == set()


def _candidate(start: int, operator: str = "comparison"):
    return SimpleNamespace(site=SimpleNamespace(file="m.py", start=start, end=start + 1, operator=operator,
                                                replacement="<="))


def test_choose_keeps_a_seeded_subset_in_source_order():
    many = [_candidate(offset) for offset in range(40)]
    first = choose(many, "task-1", 5)
    assert len(first) == 5 and [c.site.start for c in first] == sorted(c.site.start for c in first)
    assert [c.site.start for c in choose(list(reversed(many)), "task-1", 5)] == [c.site.start for c in first]
    assert len(choose(many[:3], "task-1", 5)) == 3


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


def test_the_record_round_trips_and_scores_what_it_ran():
    record = Adequacy("t", "1", 9, 4, 3, (Survivor("m.py", "comparison", 3, 10, 11),))
    assert Adequacy.from_json(record.to_json()) == record
    assert record.score == 0.75
    assert Adequacy("t", "1", 0, 0, 0, (), "no near miss: no operator applies in a function enclosing the change").score is None
