"""The engine's omission operators (version 4) on hand-written sources: what each leaves out, exactly, and
where it proposes nothing."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from bench.errors import UsageError
from bench.mutate import operators as ops
from bench.mutate.engine import mutate


def _tree(tmp_path: Path, source: str) -> Path:
    tree = tmp_path / "tree"
    (tree / "pkg").mkdir(parents=True, exist_ok=True)
    (tree / "pkg" / "__init__.py").touch()
    (tree / "pkg" / "mod.py").write_text(textwrap.dedent(source))
    return tree


def _all_mutants(tree: Path, operator: str, seeds=range(30)) -> set[str]:
    """Every mutated file text the seeded choice lands on for ``operator`` over many seeds."""
    texts = set()
    for seed in seeds:
        for candidate in mutate(tree, seed=seed, operators=(operator,), version="4"):
            data = (tree / candidate.site.file).read_bytes()
            site = candidate.site
            texts.add((data[: site.start] + site.replacement.encode() + data[site.end:]).decode())
    return texts


def _body(texts: set[str]) -> set[str]:
    return {text.split("\n", 1)[1].strip() for text in texts}


@pytest.mark.parametrize(
    ("operator", "line", "expected"),
    [
        (ops.DROPPED_CLAUSE, "return a and b", {"return a", "return b"}),
        (ops.DROPPED_CLAUSE, "return a or b or c", {"return b or c", "return a or c", "return a or b"}),
        (ops.DROPPED_CLAUSE, "return (a and\n            b)", {"return (a)", "return (b)"}),
        (ops.DROPPED_CASE, "return a in (1, 2, 3)", {"return a in (2, 3)", "return a in (1, 3)", "return a in (1, 2)"}),
        (ops.DROPPED_CASE, "return isinstance(a, (int, float, b.C,))",
         {"return isinstance(a, (float, b.C,))", "return isinstance(a, (int, b.C,))", "return isinstance(a, (int, float,))"}),
        (ops.DROPPED_CLAMP, "return max(0, a - b)", {"return a - b"}),
        (ops.DROPPED_CLAMP, "return 2 * min(a, b.limit)", {"return 2 * a", "return 2 * b.limit"}),
        (ops.DROPPED_CLAMP, "return 2 * min(a + 1, b)", {"return 2 * (a + 1)"}),
        (ops.DROPPED_NORMALISATION, "return a.strip().lower() == b", {"return a.strip() == b", "return a.lower() == b"}),
        (ops.DROPPED_KEYWORD, "return g(a, strict=True, key=b)", {"return g(a, key=b)"}),
        # a placeholder naming the function's own values is refused (bench.mutate.dead_forms: never filled)
        (ops.DROPPED_F_PREFIX, 'return f"{a}-{b!r}"', set()),
        (ops.DROPPED_F_PREFIX, 'return f"v{VERSION}-" + a + b', {'return "v{VERSION}-" + a + b'}),
    ],
)
def test_each_omission_leaves_out_exactly_one_thing(tmp_path, operator, line, expected):
    # both parameters are read before the line, so leaving one out of it leaves no name unread (an anomaly the
    # engine refuses: bench.mutate.unread)
    head = "def f(a, b):\n    log(a, b)\n"
    tree = _tree(tmp_path, f"{head}    {line}\n")
    assert {text.removeprefix(head).strip() for text in _all_mutants(tree, operator)} == expected


def test_an_omission_that_leaves_a_parameter_unread_is_refused(tmp_path):
    tree = _tree(tmp_path, "def f(a, b):\n    return a and b\n")
    assert _all_mutants(tree, ops.DROPPED_CLAUSE) == set()


@pytest.mark.parametrize(
    ("operator", "line"),
    [
        (ops.DROPPED_CASE, "return a in (1, 2)"),  # would leave a one-element tuple
        (ops.DROPPED_CASE, "return a in (b(), 2, 3)"),  # a call is not a case
        (ops.DROPPED_CLAMP, "return max(a, b, 0)"),
        (ops.DROPPED_CLAMP, "return max(0, 1)"),
        (ops.DROPPED_NORMALISATION, 'return ",".strip()'),
        (ops.DROPPED_NORMALISATION, "return a.strip(b)"),
        (ops.DROPPED_KEYWORD, "return g(strict=True)"),  # a lone keyword
        (ops.DROPPED_KEYWORD, "return g(a, key=b)"),  # not a literal flag
        (ops.DROPPED_F_PREFIX, 'return f"plain"'),
        (ops.DROPPED_F_PREFIX, 'return rf"{a}"'),
        (ops.DROPPED_F_PREFIX, 'return f"{a}" f"{b}"'),
        (ops.DROPPED_F_PREFIX, 'raise ValueError(f"{a}")'),  # an error message is not the bug's place
    ],
)
def test_an_omission_is_not_proposed_where_it_would_read_planted_or_cannot_be_one(tmp_path, operator, line):
    tree = _tree(tmp_path, f"def f(a, b):\n    {line}\n")
    assert _all_mutants(tree, operator, seeds=range(5)) == set()


def test_version_3_stays_the_default_and_knows_no_omission(tmp_path):
    tree = _tree(tmp_path, "def f(a, b):\n    return a.strip() and b\n")
    assert {c.site.operator for c in mutate(tree)} <= set(ops.NEAR_MISS_OPERATORS)
    assert mutate(tree, operators=(ops.DROPPED_CLAUSE,)) == ()
    with pytest.raises(UsageError, match="unknown mutation engine version '9'"):
        mutate(tree, version="9")


def test_near_misses_keep_the_operators_adequacy_was_measured_with():
    assert not set(ops.OMISSIONS) & set(ops.NEAR_MISS_OPERATORS)
    assert set(ops.OPERATORS) == set(ops.NEAR_MISS_OPERATORS) | set(ops.OMISSIONS)
    assert set(ops.WEIGHTS_4) == set(ops.OPERATORS) and set(ops.WEIGHTS_3) == set(ops.NEAR_MISS_OPERATORS)
    assert ops.PROFILES["3"].operators == ops.NEAR_MISS_OPERATORS
