"""The swap tables: which operator each family turns into which, as AST operator types.

The tables are the mutation-task engine's *forward* changes (the bugs it injects). A user that repairs wants
the way back as well: :func:`with_inverses` adds, for every ``a → b``, the change ``b → a``, and any extras.
Tokens for the types are in :data:`bench.operators.tokens.TOKENS`.
"""

from __future__ import annotations

import ast
from typing import Mapping

Swaps = Mapping[type, tuple[type, ...]]  # AST operator type -> the types it may become, in order

COMPARISON_SWAPS: dict[type, type] = {
    ast.Lt: ast.LtE,
    ast.LtE: ast.Lt,
    ast.Gt: ast.GtE,
    ast.GtE: ast.Gt,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
}
ARITHMETIC_SWAPS: dict[type, type] = {
    ast.Add: ast.Sub,
    ast.Sub: ast.Add,
    ast.Mult: ast.Div,
    ast.Div: ast.Mult,
    ast.FloorDiv: ast.Div,
    ast.Mod: ast.FloorDiv,
    ast.Pow: ast.Mult,
    ast.LShift: ast.RShift,
    ast.RShift: ast.LShift,
    ast.BitAnd: ast.BitOr,
    ast.BitOr: ast.BitAnd,
    ast.BitXor: ast.BitAnd,
}
BOOLEAN_SWAPS: dict[type, type] = {ast.And: ast.Or, ast.Or: ast.And}
# A comparison's negation written the way code writes it (`a < b` is false exactly when `a >= b`); only the
# ordering operators, whose negation is not already a comparison swap.
NEGATED_ORDERINGS: dict[type, type] = {ast.Lt: ast.GtE, ast.GtE: ast.Lt, ast.Gt: ast.LtE, ast.LtE: ast.Gt}
# `*` ↔ `//` of classic mutation testing: a plausible slip to repair, though the engine never injects it.
CLASSIC_ARITHMETIC: dict[type, tuple[type, ...]] = {ast.Mult: (ast.FloorDiv,), ast.FloorDiv: (ast.Mult,)}

# x → x + 1 / x - 1 (bounds) and n → n + 1 / n - 1 (integer literals), in this order
OFF_BY_ONE: tuple[tuple[str, type], ...] = (("+", ast.Add), ("-", ast.Sub))
DELTAS: tuple[int, ...] = (1, -1)


def forward(swaps: Mapping[type, type]) -> dict[type, tuple[type, ...]]:
    """The table as the engine uses it: one change per operator."""
    return {op: (new,) for op, new in swaps.items()}


def with_inverses(swaps: Mapping[type, type], extras: Swaps | None = None) -> dict[type, tuple[type, ...]]:
    """Every forward change, the inverse of each, then ``extras``; each operator's list without repeats."""
    found: dict[type, list[type]] = {}

    def add(op: type, new: type) -> None:
        targets = found.setdefault(op, [])
        if new not in targets:
            targets.append(new)

    for op, new in swaps.items():
        add(op, new)
    for op, new in swaps.items():
        add(new, op)
    for op, news in (extras or {}).items():
        for new in news:
            add(op, new)
    return {op: tuple(news) for op, news in found.items()}
