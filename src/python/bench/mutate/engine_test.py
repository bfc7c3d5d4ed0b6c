"""Tests of the mutation engine: each operator on hand-written sources, verification, determinism, scoping."""

from __future__ import annotations

import ast
import hashlib
import json
import textwrap
from pathlib import Path

import pytest

from bench.errors import CheckFailed
from bench.mutate import operators as ops
from bench.mutate.engine import ENGINE_VERSION, mutate
from bench.source.mutation_site import apply_mutation, revert


def _tree(tmp_path: Path, source: str, name: str = "pkg/mod.py") -> Path:
    tree = tmp_path / "tree"
    (tree / "pkg").mkdir(parents=True, exist_ok=True)
    (tree / "pkg" / "__init__.py").touch()
    (tree / name).write_text(textwrap.dedent(source))
    return tree


def _choices(tree: Path, operator: str, seeds=range(40)) -> set[tuple[str, str]]:
    """Every (original, replacement) the seeded choice lands on for ``operator`` over many seeds."""
    found = set()
    for seed in seeds:
        found.update((c.original, c.site.replacement) for c in mutate(tree, seed=seed, operators=(operator,)))
    return found


def _mutated_text(tree: Path, operator: str, seed: int = 0) -> str:
    (candidate,) = mutate(tree, seed=seed, operators=(operator,))
    data = (tree / candidate.site.file).read_bytes()
    site = candidate.site
    return (data[: site.start] + site.replacement.encode() + data[site.end :]).decode()


# --- each operator ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("source_line", "expected"),
    [
        ("return a < b  # keep", "return a <= b  # keep"),
        ("return a <= b", "return a < b"),
        ("return a>b", "return a>=b"),
        ("return a == b", "return a != b"),
        ("return a is not b", "return a is b"),
        ("return a not  in b", "return a in b"),
        ("return a in b", "return a not in b"),
        ("return (a)is(b)", "return (a)is not(b)"),
    ],
)
def test_comparison_swaps_only_the_operator_token(tmp_path, source_line, expected):
    tree = _tree(tmp_path, f"def f(a, b):\n    {source_line}\n")
    assert _mutated_text(tree, ops.COMPARISON) == f"def f(a, b):\n    {expected}\n"


def test_comparison_across_lines_keeps_comments_and_layout(tmp_path):
    source = "def f(a, b):\n    return (a  # left side\n            >= b)  # tail\n"
    tree = _tree(tmp_path, source)
    assert _mutated_text(tree, ops.COMPARISON) == source.replace(">=", ">")


def test_chained_comparison_offers_each_operator(tmp_path):
    tree = _tree(tmp_path, "def f(a, b, c):\n    return a < b <= c\n")
    assert _choices(tree, ops.COMPARISON) == {("<", "<="), ("<=", "<")}


@pytest.mark.parametrize(
    ("statement", "expected"),
    [
        ("return a + b", "return a - b"),
        ("return a - b", "return a + b"),
        ("return a * b", "return a / b"),
        ("return a // b", "return a / b"),
        ("return a % b", "return a // b"),
        ("return a ** b", "return a * b"),
        ("return a << b", "return a >> b"),
        ("return a & b", "return a | b"),
        ("a += b\n    return a", "a -= b\n    return a"),
    ],
)
def test_arithmetic_swaps(tmp_path, statement, expected):
    tree = _tree(tmp_path, f"def f(a, b):\n    {statement}\n")
    assert _mutated_text(tree, ops.ARITHMETIC) == f"def f(a, b):\n    {expected}\n"


@pytest.mark.parametrize(
    "body",
    [
        'return "x" + a',
        'return b"x" + a',
        'return f"{a}" + b',
        "return a.strip() + b",
        "return [a] + b",
        "return (a, b) + c",
        "return str(a) + b",
        '"-".join(a) + b',
        "return prefix + a",
        "return text - a",
        'return "%d" % a',
        "return fmt % (a, b)",
        "return a % {'k': b}",
        "return s[1:] + a",
        'return ("a" + a) + b',
        "x: str = a\n    return x + b",
        "x = 'abc'\n    return x + b",
        "return int | None",
        "return Foo | a",
        'return "-" * a',
    ],
)
def test_type_aware_filter_skips_text_and_container_arithmetic(tmp_path, body):
    tree = _tree(tmp_path, f"def f(a, b, c, fmt, prefix, text, s, Foo):\n    {body}\n")
    assert mutate(tree, operators=(ops.ARITHMETIC,)) == ()


def test_type_aware_filter_uses_parameter_annotations(tmp_path):
    tree = _tree(tmp_path, "def f(a: str, b):\n    return a + b\ndef g(a: int, b):\n    return a + b\n")
    assert [c.site.function for c in mutate(tree, operators=(ops.ARITHMETIC,))] == ["g"]


def test_constant_off_by_one_keeps_the_literal_base(tmp_path):
    tree = _tree(tmp_path, "def f():\n    return 0x1F\n")
    assert _choices(tree, ops.CONSTANT_OFF_BY_ONE) == {("0x1F", "0x20"), ("0x1F", "0x1e")}


def test_constant_zero_only_goes_up_and_bools_are_left_alone(tmp_path):
    tree = _tree(tmp_path, "def f(x):\n    return x[0], True, 1.5, 'a'\n")
    assert _choices(tree, ops.CONSTANT_OFF_BY_ONE) == {("0", "1")}


def test_negative_index_constant(tmp_path):
    tree = _tree(tmp_path, "def f(s):\n    return s[:-1]\n")
    assert _choices(tree, ops.CONSTANT_OFF_BY_ONE) == {("1", "2"), ("1", "0")}


def test_slice_bounds_off_by_one(tmp_path):
    tree = _tree(tmp_path, "def f(s, i, j):\n    return s[i:j]\n")
    assert _choices(tree, ops.SLICE_OFF_BY_ONE) == {("i", "i + 1"), ("i", "i - 1"), ("j", "j + 1"), ("j", "j - 1")}


def test_slice_bound_with_lower_precedence_gets_parentheses(tmp_path):
    tree = _tree(tmp_path, "def f(s, a):\n    return s[a << 2:]\n")
    assert _choices(tree, ops.SLICE_OFF_BY_ONE) == {("a << 2", "(a << 2) + 1"), ("a << 2", "(a << 2) - 1")}


@pytest.mark.parametrize(
    ("statement", "expected"),
    [
        ("if x:\n        return 1", "if not x:\n        return 1"),
        ("if not x:\n        return 1", "if x:\n        return 1"),
        ("if not(x):\n        return 1", "if (x):\n        return 1"),
        ("while x < 3:\n        x += 1", "while x >= 3:\n        x += 1"),
        ("if x.n >= len(y):\n        return 1", "if x.n < len(y):\n        return 1"),
        ("return 1 if x.ok else 2", "return 1 if not x.ok else 2"),
        ("if x(y):\n        return 1", "if not x(y):\n        return 1"),
    ],
)
def test_negate_condition_is_written_the_way_code_writes_conditions(tmp_path, statement, expected):
    tree = _tree(tmp_path, f"def f(x, y):\n    {statement}\n")
    assert _mutated_text(tree, ops.NEGATE_CONDITION) == f"def f(x, y):\n    {expected}\n"


def test_negate_condition_never_wraps_in_not_parentheses_a_file_does_not_write(tmp_path):
    source = "def f(x, y):\n    if x and y:\n        return 1\n    if (m := x()):\n        return m\n"
    assert mutate(_tree(tmp_path, source), operators=(ops.NEGATE_CONDITION,)) == ()


def test_negate_condition_never_injects_a_not_parentheses_wrapper_even_where_the_file_writes_one(tmp_path):
    source = ("def f(x, y):\n    if x and y:\n        return 1\n\n\n"
              "def g(x, y):\n    return not (x or y)\n")
    # the operator proposes the wrapper where the file writes one (a near miss may be anything) ...
    from bench.mutate.engine import near_misses

    proposed = {c.site.replacement for c in near_misses(_tree(tmp_path, source), "pkg/mod.py", {2})}
    assert "not (x and y)" in proposed
    # ... but the engine never plants it as a task's bug
    assert mutate(_tree(tmp_path, source), operators=(ops.NEGATE_CONDITION,)) == ()


def test_negate_condition_skips_literal_tests(tmp_path):
    tree = _tree(tmp_path, "def f(x):\n    while True:\n        x()\n")
    assert mutate(tree, operators=(ops.NEGATE_CONDITION,)) == ()


def test_return_none_replaces_the_whole_value_parentheses_included(tmp_path):
    source = "def f(a, b):\n    if a is None:\n        return None\n    return (a +\n            b)  # sum\n"
    tree = _tree(tmp_path, source)
    assert _mutated_text(tree, ops.RETURN_NONE).endswith("        return None\n    return None  # sum\n")


def test_return_none_only_where_the_function_returns_none_on_another_path(tmp_path):
    source = """
        def always(a):
            if a:
                return a + 1
            return a - 1

        def bare(a):
            if a:
                return
            return a - 1

        def falls_off(a):
            if a:
                return a - 1
            a.clear()
    """
    found = {(c.site.function, c.site.lineno) for c in mutate(_tree(tmp_path, source), operators=(ops.RETURN_NONE,))}
    assert found == {("bare", 10), ("falls_off", 14)}


def test_return_none_is_a_last_resort(tmp_path):
    source = "def f(a, b):\n    if a is None:\n        return None\n    return a < b\n"
    (candidate,) = mutate(_tree(tmp_path, source))
    assert candidate.site.operator != ops.RETURN_NONE


def test_swapped_arguments_adjacent_names_or_attributes_only(tmp_path):
    source = "def f(a, b, c):\n    g(a, b)\n    g(a, 1, b)\n    g(a, a)\n    g(c.x, 2)\n"
    found = {(c.original, c.site.replacement) for c in mutate(_tree(tmp_path, source), operators=(ops.SWAPPED_ARGUMENTS,))}
    assert found == {("a, b", "b, a")}


def test_wrong_variable_reads_a_local_already_held_that_the_statement_does_not_mention(tmp_path):
    source = ("def f(self, start, end, text):\n    size = len(text)\n    rv = {}\n"
              "    rv[start] = text[start:end]\n    return rv\n")
    choices = _choices(_tree(tmp_path, source), ops.WRONG_VARIABLE, seeds=range(200))
    # `size = len(text)`: text may become start or end (held, unmentioned); `rv[start] = text[start:end]`: rv is
    # a subscript's object, so only start/text/end change, and only into size (rv is mentioned); `return rv`:
    # any local held by then; never self, never a name assigned later; and never `end` → `size`: end is read
    # once in the function, and replacing that read would leave it unread (a giveaway)
    assert choices == {("text", "start"), ("text", "end"), ("start", "size"), ("text", "size"),
                       ("rv", "start"), ("rv", "end"), ("rv", "text"), ("rv", "size")}



def test_return_none_skips_none_false_notimplemented_bare_returns_and_generators(tmp_path):
    source = """
        def f(x):
            if x:
                return
            if x > 1:
                return False
            if x > 2:
                return NotImplemented
            return None

        def g(x):
            yield x
            return x
    """
    assert mutate(_tree(tmp_path, source), operators=(ops.RETURN_NONE,)) == ()


def test_boolean_swap_all_keywords_of_one_node(tmp_path):
    tree = _tree(tmp_path, "def f(a, b, c):\n    return a and b and c  # all\n")
    assert _mutated_text(tree, ops.BOOLEAN_SWAP) == "def f(a, b, c):\n    return a or b or c  # all\n"


def test_boolean_swap_parenthesises_when_grouping_would_change_and_drops_impossible_sites(tmp_path):
    # The inner `and` swapped bare would merge into the outer `or`: parentheses keep the intended tree.
    # The outer `or` swapped would merge with the inner `and` however it is spelled: no candidate.
    tree = _tree(tmp_path, "def f(a, b, c):\n    return a or b and c\n")
    assert _choices(tree, ops.BOOLEAN_SWAP) == {("b and c", "(b or c)")}


# --- verification, determinism, scoping -----------------------------------------------------------------------

MANY_SITES = """
import os  # module level code is never mutated: 1 + 1


def many(a, b, items):
    '''A docstring.'''
    total = 0  # running total
    for item in items[1:]:
        if item > a and item != b:
            total += item * 2
    return total


class Box:
    def __init__(self, size):
        self.size = size * 2

    def __repr__(self):
        return "Box(%d)" % (self.size - 1)

    def empty(self):
        '''Only a docstring.'''

    def stub(self):
        pass

    def grow(self, by):
        def clamp(value):
            return min(value, 10)
        return clamp(self.size + by)
"""


def test_every_candidate_reparses_to_exactly_one_changed_node(tmp_path):
    tree = _tree(tmp_path, MANY_SITES)
    original = ast.parse((tree / "pkg/mod.py").read_bytes())
    for seed in range(30):
        for candidate in mutate(tree, seed=seed):
            site = candidate.site
            data = (tree / site.file).read_bytes()
            assert data[site.start : site.end].decode() == candidate.original
            assert site.original_sha256 == hashlib.sha256(data[site.start : site.end]).hexdigest()
            mutated = ast.parse(data[: site.start] + site.replacement.encode() + data[site.end :])
            changed = [
                index
                for index, (before, after) in enumerate(zip(original.body, mutated.body))
                if ast.dump(before) != ast.dump(after)
            ]
            assert len(mutated.body) == len(original.body) and len(changed) == 1


def test_one_candidate_per_function_with_qualified_names(tmp_path):
    candidates = mutate(_tree(tmp_path, MANY_SITES), seed=3)
    functions = [c.site.function for c in candidates]
    assert sorted(functions) == ["Box.__init__", "Box.grow", "Box.grow.<locals>.clamp", "many"]
    assert [c.site.index for c in candidates] == [0, 1, 2, 3]
    assert [(c.site.file, c.site.start) for c in candidates] == sorted((c.site.file, c.site.start) for c in candidates)
    assert all(c.site.lineno > 3 for c in candidates)  # nothing from the module-level line


def test_same_seed_same_candidates(tmp_path):
    tree = _tree(tmp_path, MANY_SITES)
    assert mutate(tree, seed=11) == mutate(tree, seed=11)
    assert all(c.site.seed == 11 and c.site.engine_version == ENGINE_VERSION for c in mutate(tree, seed=11))


def test_different_seeds_choose_differently(tmp_path):
    tree = _tree(tmp_path, MANY_SITES)
    choices = {tuple((c.site.start, c.site.replacement) for c in mutate(tree, seed=seed)) for seed in range(8)}
    assert len(choices) > 1


def test_choice_does_not_depend_on_pythons_hash_seed(tmp_path):
    import subprocess
    import sys

    from bench.testing.support import child_env

    tree = _tree(tmp_path, MANY_SITES)
    program = (
        "import json, sys; from bench.mutate.engine import mutate; "
        "print(json.dumps([c.to_dict() for c in mutate(sys.argv[1], seed=3, limit=3)]))"
    )
    outputs = {
        subprocess.run(
            [sys.executable, "-c", program, str(tree)],
            env=child_env({"PYTHONHASHSEED": hash_seed}),
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for hash_seed in ("1", "2", "3")
    }
    assert len(outputs) == 1 and len(json.loads(outputs.pop())) == 3


def test_limit_takes_a_seeded_subset_in_file_order(tmp_path):
    tree = _tree(tmp_path, MANY_SITES)
    limited = mutate(tree, seed=5, limit=2)
    assert len(limited) == 2 and [c.site.index for c in limited] == [0, 1]
    assert limited == mutate(tree, seed=5, limit=2)
    everything = {(c.site.function, c.site.start) for c in mutate(tree, seed=5)}
    assert {(c.site.function, c.site.start) for c in limited} <= everything


def test_skips_type_checking_overloads_and_fstrings_raise_and_logging(tmp_path):
    source = """
        from typing import TYPE_CHECKING, overload
        if TYPE_CHECKING:
            def hidden(a):
                return a + 1

        @overload
        def over(a: int) -> int: ...

        def loud(a, log):
            log.debug("n=%d", a + 1)
            print(a - 1)
            assert a > 0
            message = f"{a ** 3}"
            raise ValueError(a * 2)
    """
    tree = _tree(tmp_path, source)
    assert mutate(tree) == ()
    # Inside an f-string nothing is touched; under version 4 the string itself may lose its `f` (an omission).
    assert [(c.site.operator, c.site.lineno) for c in mutate(tree, version="4")] == [(ops.DROPPED_F_PREFIX, 14)]
    others = tuple(operator for operator in ops.OPERATORS if operator != ops.DROPPED_F_PREFIX)
    assert mutate(tree, operators=others, version="4") == ()


def test_interpreter_version_checks_are_not_mutated(tmp_path):
    source = """
        import sys
        PY3 = True

        def shim(a):
            if sys.version_info >= (3, 10):
                a()
            if sys.hexversion < 0x30A00A6 or PY3:
                a()
            return a
    """
    assert [c.site.operator for c in mutate(_tree(tmp_path, source))] == []


def test_candidate_records_location_and_diff(tmp_path):
    tree = _tree(tmp_path, "def f(a, b):\n    x = 1\n    return a  <  b\n")
    (candidate,) = mutate(tree, operators=(ops.COMPARISON,))
    site = candidate.site
    assert (site.file, site.function, site.operator, site.lineno, site.col) == ("pkg/mod.py", "f", "comparison", 3, 14)
    assert (candidate.original, site.replacement, site.end - site.start) == ("<", "<=", 1)
    assert site.original_sha256 == hashlib.sha256(b"<").hexdigest()  # the spec names the text, never quotes it
    assert candidate.diff == (
        "--- a/pkg/mod.py\n+++ b/pkg/mod.py\n@@ -1,3 +1,3 @@\n def f(a, b):\n     x = 1\n"
        "-    return a  <  b\n+    return a  <=  b\n"
    )
    assert candidate.to_dict()["diff"] == candidate.diff


def test_unparsable_and_non_utf8_files_are_skipped(tmp_path):
    tree = _tree(tmp_path, "def f(a):\n    return a < 1\n")
    (tree / "pkg" / "broken.py").write_text("def f(:\n")
    (tree / "pkg" / "latin.py").write_bytes(b"# -*- coding: latin-1 -*-\ndef f(a):\n    return a < '\xe9'\n")
    assert {c.site.file for c in mutate(tree)} == {"pkg/mod.py"}


# --- applying --------------------------------------------------------------------------------------------------


def test_apply_and_revert_round_trip_and_drop_stale_bytecode(tmp_path):
    tree = _tree(tmp_path, MANY_SITES)
    original = (tree / "pkg/mod.py").read_bytes()
    cache = tree / "pkg" / "__pycache__"
    cache.mkdir()
    (cache / "mod.cpython-311.pyc").write_bytes(b"stale")
    (cache / "other.cpython-311.pyc").write_bytes(b"keep")
    for candidate in mutate(tree, seed=2):
        site = candidate.site
        path = apply_mutation(tree, site)
        assert path == tree / site.file
        mutated = path.read_bytes()
        assert mutated == original[: site.start] + site.replacement.encode() + original[site.end :]
        assert not (cache / "mod.cpython-311.pyc").exists() and (cache / "other.cpython-311.pyc").exists()
        revert(tree, site, candidate.original)
        assert path.read_bytes() == original


def test_apply_refuses_when_the_span_does_not_hold_the_original(tmp_path):
    tree = _tree(tmp_path, "def f(a, b):\n    return a < b\n")
    (candidate,) = mutate(tree, operators=(ops.COMPARISON,))
    apply_mutation(tree, candidate.site)
    with pytest.raises(CheckFailed, match="already swapped"):  # `<=` starts with `<`: the hash alone agrees
        apply_mutation(tree, candidate.site)
    with pytest.raises(CheckFailed, match="not the text the site replaced"):
        revert(tree, candidate.site, ">")
    revert(tree, candidate.site, candidate.original)
    with pytest.raises(CheckFailed, match="expected '<='"):
        revert(tree, candidate.site, candidate.original)
    (tree / "pkg/mod.py").write_text("def f(a, b):\n    return a > b\n")  # same size, other text
    with pytest.raises(CheckFailed, match="does not hold the text the site names"):
        apply_mutation(tree, candidate.site)


# --- a real release ------------------------------------------------------------------------------------------


def test_engine_output_on_six_is_pinned_per_version(tmp_path, monkeypatch):
    """Any change to what the engine proposes must bump ENGINE_VERSION (and this digest) on purpose."""
    from bench.source.sdist import fetch_sdist, find_release, unpack_sdist

    monkeypatch.setenv("BENCH_CACHE_DIR", str(tmp_path / "cache"))
    tree = unpack_sdist(fetch_sdist(find_release("six", "1.16.0")), tmp_path / "six")
    # Digested as when sites quoted their text (now named by sha256): the proposals themselves are unchanged.
    def pinned(version):
        candidates = mutate(tree, seed=0, version=version)
        quoted = [{**_without(c.to_dict(), "original_sha256"), "original": c.original} for c in candidates]
        assert all(c.site.original_sha256 == hashlib.sha256(c.original.encode()).hexdigest() for c in candidates)
        assert all(c.site.engine_version == version for c in candidates)
        return len(candidates), hashlib.sha256(json.dumps(quoted, sort_keys=True).encode()).hexdigest()

    assert ENGINE_VERSION == "3"  # the committed pool's: its output must not move
    assert pinned("3") == (29, "95b9b1d1713420c2a052cd510b6c2b9c250f4e85db472e57401db0eb0f1797e0")
    assert pinned("4") == (18, "d9ae8ad05c1dc3cf94d16117b75301ea320d9fcbab40683eb4cab7462903a6f2")


def _without(mapping: dict, key: str) -> dict:
    return {k: v for k, v in mapping.items() if k != key}
