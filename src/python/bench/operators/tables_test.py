from __future__ import annotations

import ast

from bench.operators.tables import (
    ARITHMETIC_SWAPS,
    BOOLEAN_SWAPS,
    CLASSIC_ARITHMETIC,
    COMPARISON_SWAPS,
    forward,
    with_inverses,
)


def test_forward_is_one_change_per_operator():
    assert forward({ast.Add: ast.Sub}) == {ast.Add: (ast.Sub,)}


def test_with_inverses_adds_the_way_back_then_extras_without_repeats():
    assert with_inverses({ast.Add: ast.Sub, ast.Mult: ast.Div}, {ast.Mult: (ast.FloorDiv, ast.Div)}) == {
        ast.Add: (ast.Sub,),
        ast.Mult: (ast.Div, ast.FloorDiv),
        ast.Sub: (ast.Add,),
        ast.Div: (ast.Mult,),
    }


def test_comparison_and_boolean_swaps_are_their_own_inverse():
    assert with_inverses(COMPARISON_SWAPS) == forward(COMPARISON_SWAPS)
    assert with_inverses(BOOLEAN_SWAPS) == forward(BOOLEAN_SWAPS)


def test_arithmetic_with_inverses_undoes_every_forward_change():
    table = with_inverses(ARITHMETIC_SWAPS, CLASSIC_ARITHMETIC)
    assert all(op in table[new] for op, new in ARITHMETIC_SWAPS.items())
    assert table[ast.Mult] == (ast.Div, ast.Pow, ast.FloorDiv)
