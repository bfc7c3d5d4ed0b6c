import pytest

import linediff


def same(lines):
    return [(" ", line) for line in lines]


def test_identical_inputs():
    assert linediff.diff(["a", "b"], ["a", "b"]) == same(["a", "b"])


def test_pure_insertion_and_deletion():
    assert linediff.diff(["x", "y"], ["x", "new", "y"]) == [(" ", "x"), ("+", "new"), (" ", "y")]
    assert linediff.diff(["x", "old", "y"], ["x", "y"]) == [(" ", "x"), ("-", "old"), (" ", "y")]


def test_changed_line_removal_comes_first():
    assert linediff.diff(["x", "old", "y"], ["x", "new", "y"]) == [
        (" ", "x"), ("-", "old"), ("+", "new"), (" ", "y")]


def test_empty_sides():
    assert linediff.diff([], ["a"]) == [("+", "a")]
    assert linediff.diff(["a", "b"], []) == [("-", "a"), ("-", "b")]


def test_keeps_a_longest_common_subsequence():
    a = ["a", "b", "c", "a", "b", "b", "a"]
    b = ["c", "b", "a", "b", "a", "c"]
    ops = linediff.diff(a, b)
    assert sum(tag == " " for tag, _ in ops) == 4
    assert linediff.apply_diff(a, ops) == b


def test_apply_rejects_mismatches():
    with pytest.raises(ValueError):
        linediff.apply_diff(["a"], [(" ", "b")])
    with pytest.raises(ValueError):
        linediff.apply_diff(["a", "b"], [(" ", "a")])


def test_hunks_separated_by_unchanged_lines():
    ops = same(["1"]) + [("-", "x")] + same(["2", "3", "4"]) + [("+", "y")] + same(["5"])
    assert linediff.hunks(ops, context=1) == [ops[0:3], ops[4:7]]


def test_adjacent_hunks_merge():
    ops = same(["1"]) + [("-", "x")] + same(["2", "3"]) + [("+", "y")] + same(["5"])
    assert linediff.hunks(ops, context=1) == [ops]


def test_hunks_without_changes():
    assert linediff.hunks(same(["a", "b"])) == []
