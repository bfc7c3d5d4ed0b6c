from __future__ import annotations

import ast

from bench.model.repair_candidates import (
    CANDIDATE_ARITHMETIC,
    CANDIDATE_COMPARISONS,
    apply_mutation,
    enumerate_mutations,
)
from bench.operators.tables import ARITHMETIC_SWAPS, COMPARISON_SWAPS
from bench.operators.tokens import TOKENS

SOURCE = '''\
def clamp(x, lo, hi):
    """Keep x within [lo, hi]."""
    if x < lo:  # below
        return lo
    if x > hi and not (lo is None or hi in (1, 2)):
        return hi
    return x


def total(items, n):
    acc = 0
    for i in range(1, n):
        acc += items[i] * 2 // 3
    first = items[:n]
    pick(acc, n)
    return
'''


def _by_operator(operator: str) -> list[tuple[str, str]]:
    return [(m.original, m.replacement) for m in enumerate_mutations("m.py", SOURCE) if m.operator == operator]


def test_comparison_swaps_replace_only_the_operator_token():
    assert _by_operator("cmp") == [("<", "<="), (">", ">="), ("is", "is not"), ("in", "not in")]


def test_arithmetic_swaps_cover_augmented_assignment_and_floor_division():
    assert _by_operator("arith") == [
        ("+=", "-="), ("*", "**"), ("*", "/"), ("*", "//"), ("//", "%"), ("//", "*"), ("//", "/")
    ]


def test_the_derived_tables_are_the_inverse_and_classic_set():
    # The arithmetic table the candidates were enumerated with before it was derived from the engine's.
    tokens = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.FloorDiv: "//", ast.Div: "/", ast.Mod: "%",
              ast.Pow: "**", ast.LShift: "<<", ast.RShift: ">>", ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^"}
    replaced = {ast.Add: {"-"}, ast.Sub: {"+"}, ast.Mult: {"//", "/", "**"}, ast.FloorDiv: {"*", "/", "%"},
                ast.Div: {"//", "*"}, ast.Mod: {"//"}, ast.Pow: {"*"}, ast.LShift: {">>"}, ast.RShift: {"<<"},
                ast.BitAnd: {"|", "^"}, ast.BitOr: {"&"}, ast.BitXor: {"&"}}
    assert {op: {tokens[new] for new in news} for op, news in CANDIDATE_ARITHMETIC.items()} == replaced
    assert all(len(news) == len(set(news)) for news in CANDIDATE_ARITHMETIC.values())
    assert CANDIDATE_COMPARISONS == {
        ast.Lt: (ast.LtE,), ast.LtE: (ast.Lt,), ast.Gt: (ast.GtE,), ast.GtE: (ast.Gt,), ast.Eq: (ast.NotEq,),
        ast.NotEq: (ast.Eq,), ast.Is: (ast.IsNot,), ast.IsNot: (ast.Is,), ast.In: (ast.NotIn,), ast.NotIn: (ast.In,)
    }


def test_every_arithmetic_change_of_the_mutation_engine_can_be_undone():
    # (injected by bench.mutate, the token the repairer must put back)
    injected = [("-", "+"), ("+", "-"), ("/", "*"), ("*", "/"), ("/", "//"), ("//", "%"), ("*", "**"),
                (">>", "<<"), ("<<", ">>"), ("|", "&"), ("&", "|"), ("&", "^")]
    for bug, fix in injected:
        source = f"def f(a, b):\n    return a {bug} b\n"
        assert (bug, fix) in {(m.original, m.replacement) for m in enumerate_mutations("m.py", source)}


def test_every_swap_the_engine_injects_has_its_way_back_among_the_candidates():
    for op, new in {**ARITHMETIC_SWAPS, **COMPARISON_SWAPS}.items():
        bug, fix = TOKENS[new].text, TOKENS[op].text
        source = f"def f(a, b):\n    return a {bug} b\n"
        assert (bug, fix) in {(m.original, m.replacement) for m in enumerate_mutations("m.py", source)}


def test_integer_constants_move_by_one_and_bounds_get_plus_minus_one():
    assert ("1", "0") in _by_operator("const") and ("1", "2") in _by_operator("const")
    assert _by_operator("bound") == [("n", "n + 1"), ("n", "n - 1"), ("i", "i + 1"), ("i", "i - 1"),
                                     ("n", "n + 1"), ("n", "n - 1")]


def test_conditions_negate_and_boolean_operators_swap_and_not_drops():
    negated = _by_operator("negate")
    assert ("x < lo", "not (x < lo)") in negated
    assert _by_operator("boolop")[0][1].startswith("x > hi or not")
    assert _by_operator("drop-not") == [("not (lo is None or hi in (1, 2))", "(lo is None or hi in (1, 2))")]


def test_bare_return_gets_locals_then_parameters():
    assert _by_operator("return") == [
        ("return", "return acc"), ("return", "return first"), ("return", "return i"), ("return", "return items")
    ]


def test_call_arguments_of_the_same_kind_are_swapped():
    assert _by_operator("swap-args") == [("acc, n", "n, acc")]


def test_every_mutant_parses_differs_and_keeps_the_line_count():
    mutants = [apply_mutation(SOURCE, m) for m in enumerate_mutations("m.py", SOURCE)]
    assert len(mutants) == len(set(mutants)) == 39
    for mutant in mutants:
        ast.parse(mutant)
        assert mutant != SOURCE
        assert mutant.count("\n") == SOURCE.count("\n")
        assert "# below" in mutant  # comments and formatting survive


def test_enumeration_is_deterministic_and_keys_are_unique():
    first = enumerate_mutations("m.py", SOURCE)
    assert first == enumerate_mutations("m.py", SOURCE)
    assert len({m.key for m in first}) == len(first)


def test_non_ascii_text_keeps_byte_offsets_right():
    source = 'def f(x):\n    s = "héllo"; return x < 3\n'
    mutants = {apply_mutation(source, m) for m in enumerate_mutations("m.py", source)}
    assert 'def f(x):\n    s = "héllo"; return x <= 3\n' in mutants


def test_unparsable_source_has_no_mutants():
    assert enumerate_mutations("m.py", "def broken(:\n") == ()
