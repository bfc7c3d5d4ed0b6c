"""Each way a planted bug gives itself away, refused on a constructed function; the same sites stay near misses."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from bench.mutate import operators as ops
from bench.mutate.engine import mutate, near_misses


def _tree(tmp_path: Path, source: str) -> Path:
    (tmp_path / "pkg").mkdir(parents=True, exist_ok=True)
    (tmp_path / "pkg" / "__init__.py").touch()
    (tmp_path / "pkg" / "mod.py").write_text(textwrap.dedent(source))
    return tmp_path


def _planted(tmp_path: Path, source: str, operator: str) -> set[tuple[str, str]]:
    tree = _tree(tmp_path, source)
    return {(c.original, c.site.replacement) for seed in range(30) for c in mutate(tree, seed=seed, operators=(operator,))}


def _near(tmp_path: Path, source: str, operator: str) -> set[tuple[str, str]]:
    lines = set(range(1, source.count("\n") + 2))
    return {(c.original, c.site.replacement) for c in near_misses(_tree(tmp_path, source), "pkg/mod.py", lines)
            if c.site.operator == operator}


CASES = [
    # the step of an increment: n + 1 never becomes n + 2 (nor n + 0); an index 1 may
    (ops.CONSTANT_OFF_BY_ONE, "def f(n, xs):\n    return n + 1, xs[1]\n", {("1", "2"), ("1", "0")}, {("1", "2"), ("1", "0")}),
    # an error guard's condition is never turned around; the same comparison elsewhere is
    (ops.COMPARISON, "def f(x):\n    if x is None:\n        raise ValueError('no x')\n    return x == 2\n",
     {("==", "!=")}, {("is", "is not"), ("==", "!=")}),
]


@pytest.mark.parametrize(("operator", "source", "planted", "near"), CASES)
def test_what_gives_itself_away_is_not_planted_but_stays_a_near_miss(tmp_path, operator, source, planted, near):
    assert _planted(tmp_path / "a", source, operator) == planted
    assert _near(tmp_path / "b", source, operator) == near


def test_the_step_of_an_increment_is_left_alone_but_an_index_is_not(tmp_path):
    source = "def f(n, xs):\n    n += 1\n    return xs[1] - 1\n"
    assert {c.site.lineno for c in mutate(_tree(tmp_path, source), operators=(ops.CONSTANT_OFF_BY_ONE,))} == {3}
    found = {(c.original, c.site.col) for s in range(30) for c in mutate(_tree(tmp_path, source), seed=s,
                                                                      operators=(ops.CONSTANT_OFF_BY_ONE,))}
    assert found == {("1", 14)}  # xs[1]; never the - 1 nor the += 1


def test_a_wrong_variable_never_leaves_the_name_it_replaced_unread(tmp_path):
    source = "def update(self, other, extra):\n    for o in other:\n        self.add(o)\n    return extra\n"
    planted = _planted(tmp_path, source, ops.WRONG_VARIABLE)
    # o and extra are read once each: replacing that read would leave them unread; other is read once too
    assert planted == set()
    assert ("o", "other") in _near(tmp_path / "n", source, ops.WRONG_VARIABLE)


def test_one_test_of_a_dispatch_chain_is_not_flipped(tmp_path):
    source = ("def f(kind, a):\n    if kind == 1:\n        return a\n    elif kind == 2:\n        return -a\n"
              "    elif kind == 3:\n        return 0\n    return a > 0\n")
    assert _planted(tmp_path, source, ops.COMPARISON) == {(">", ">=")}
    assert ("==", "!=") in _near(tmp_path / "n", source, ops.COMPARISON)


def test_the_direction_of_an_increment_is_not_flipped_but_other_arithmetic_is(tmp_path):
    source = "def bump(self, n, k):\n    return self.count + 1, n * k\n"
    assert _planted(tmp_path, source, ops.ARITHMETIC) == {("*", "/")}
    assert ("+", "-") in _near(tmp_path / "n", source, ops.ARITHMETIC)


@pytest.mark.parametrize(("body", "falls"), [
    ("return 1", False),
    ("if x:\n        return 1\n    else:\n        raise ValueError", False),
    ("if x:\n        return 1", True),
    ("try:\n        return int(x)\n    except ValueError:\n        return 0", False),
    ("try:\n        return int(x)\n    except ValueError:\n        pass", True),
    ("with x:\n        return 1", False),
    ("for y in x:\n        return y", True),
])
def test_whether_a_function_can_run_off_its_end(body, falls):
    import ast

    from bench.mutate.operators import can_fall_through

    assert can_fall_through(ast.parse(f"def f(x):\n    {body}\n").body[0].body) is falls
