"""The mutation engine's operators: which sites of the operator library (:mod:`bench.operators`) it proposes in
one function's AST, and under which names.

Every operator proposes :class:`bench.operators.sites.Site` records: a byte span of the file, replacement
texts in order of preference (the engine keeps the first whose re-parsed AST is exactly the intended node
change) and a builder of that intended node. Operators only look; the engine verifies, chooses and applies.

=======================  =================================================================================
operator                 change
=======================  =================================================================================
``comparison``           ``<``→``<=``, ``<=``→``<``, ``>``→``>=``, ``>=``→``>``, ``==``↔``!=``, ``is``↔``is
                         not``, ``in``↔``not in``
``arithmetic``           ``+``↔``-``, ``*``→``/``, ``/``→``*``, ``//``→``/``, ``%``→``//``, ``**``→``*``,
                         ``<<``↔``>>``, ``&``↔``|``, ``^``→``&`` (also augmented ``+=`` …), skipped where an
                         operand is obviously not a number (strings, containers, string-method results)
``constant_off_by_one``  an integer literal ``n`` → ``n + 1`` / ``n - 1`` (written as one literal)
``slice_off_by_one``     a non-literal slice bound ``x`` → ``x + 1`` / ``x - 1``
``negate_condition``     an ``if`` / ``elif`` / ``while`` / conditional-expression test ``c`` → ``not c``
                         (``not c`` → ``c``)
``return_none``          ``return X`` → ``return None`` (not in generators; not for None, False,
                         NotImplemented)
``boolean_swap``         ``and`` ↔ ``or``
=======================  =================================================================================
"""

from __future__ import annotations

import ast
from typing import Iterator

from bench.mutate._stringy import is_obviously_not_number, is_type_like
from bench.mutate.scope import is_version_check
from bench.operators import sites as families
from bench.operators.rewrites import constant_sites, drop_not_sites, negation_sites, off_by_one_sites, return_none_sites
from bench.operators.sites import Site, arithmetic_operands, arithmetic_sites, boolean_sites, comparison_sites
from bench.operators.tables import ARITHMETIC_SWAPS, COMPARISON_SWAPS, forward
from bench.operators.view import SourceView

COMPARISON = "comparison"
ARITHMETIC = "arithmetic"
CONSTANT_OFF_BY_ONE = "constant_off_by_one"
SLICE_OFF_BY_ONE = "slice_off_by_one"
NEGATE_CONDITION = "negate_condition"
RETURN_NONE = "return_none"
BOOLEAN_SWAP = "boolean_swap"
OPERATORS = (
    COMPARISON,
    ARITHMETIC,
    CONSTANT_OFF_BY_ONE,
    SLICE_OFF_BY_ONE,
    NEGATE_CONDITION,
    RETURN_NONE,
    BOOLEAN_SWAP,
)
# library family -> this engine's operator name (the name task specs carry)
_NAMES = {
    families.COMPARISON: COMPARISON,
    families.ARITHMETIC: ARITHMETIC,
    families.CONSTANT: CONSTANT_OFF_BY_ONE,
    families.BOUND: SLICE_OFF_BY_ONE,
    families.NEGATE: NEGATE_CONDITION,
    families.DROP_NOT: NEGATE_CONDITION,
    families.RETURN_NONE: RETURN_NONE,
    families.BOOLEAN: BOOLEAN_SWAP,
}
# The bugs injected are the forward changes only.
_COMPARISON = forward(COMPARISON_SWAPS)
_ARITHMETIC = forward(ARITHMETIC_SWAPS)


def _is_plausible_arithmetic(node: ast.BinOp | ast.AugAssign, stringy: frozenset[str]) -> bool:
    left, right = arithmetic_operands(node)
    if is_obviously_not_number(left, stringy) or is_obviously_not_number(right, stringy):
        return False
    if isinstance(node.op, ast.Mod) and isinstance(right, (ast.Tuple, ast.Dict)):
        return False  # `fmt % (a, b)`: string formatting whatever `fmt` is
    # `int | None`: a union of types
    return not (isinstance(node.op, (ast.BitOr, ast.BitAnd)) and (is_type_like(left) or is_type_like(right)))


def _is_literal_bound(bound: ast.expr) -> bool:
    if isinstance(bound, ast.UnaryOp) and isinstance(bound.op, (ast.USub, ast.UAdd)):
        bound = bound.operand
    return isinstance(bound, ast.Constant)


def _slice_sites(node: ast.Slice, view: SourceView) -> Iterator[Site]:
    for bound in (node.lower, node.upper):
        if bound is not None and not _is_literal_bound(bound):  # literal bounds are the constant operator's
            yield from off_by_one_sites(bound, view)


def _negation_sites(test: ast.expr, view: SourceView) -> Iterator[Site]:
    if isinstance(test, ast.Constant) or is_version_check(test):
        return  # `while True:`, `if PY3:`: negating a literal or an interpreter check is not a plausible bug
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        yield from drop_not_sites(test, view)
    else:
        yield from negation_sites(test, view)


def _is_plausible_return(node: ast.Return) -> bool:
    value = node.value
    # `return False` -> `return None` is the same answer wherever a predicate's result is used;
    # `return NotImplemented` belongs to the operator protocol, where None is not a plausible slip.
    if value is None or (isinstance(value, ast.Constant) and value.value in (None, False)):
        return False
    return not (isinstance(value, ast.Name) and value.id == "NotImplemented")


def _library_sites(node: ast.AST, view: SourceView, stringy: frozenset[str], in_generator: bool) -> Iterator[Site]:
    if isinstance(node, ast.Compare):
        yield from comparison_sites(node, view, _COMPARISON)
    elif isinstance(node, (ast.BinOp, ast.AugAssign)):
        if type(node.op) in _ARITHMETIC and _is_plausible_arithmetic(node, stringy):
            yield from arithmetic_sites(node, view, _ARITHMETIC)
    elif isinstance(node, ast.Constant):
        yield from constant_sites(node, view)
    elif isinstance(node, ast.Slice):
        yield from _slice_sites(node, view)
    elif isinstance(node, ast.BoolOp):
        yield from boolean_sites(node, view)
    elif isinstance(node, ast.Return) and not in_generator:
        if _is_plausible_return(node):
            yield from return_none_sites(node, view)
    if isinstance(node, (ast.If, ast.While, ast.IfExp)):
        yield from _negation_sites(node.test, view)


def sites_of(node: ast.AST, view: SourceView, *, stringy: frozenset[str], in_generator: bool) -> Iterator[Site]:
    """Every site whose changed node is ``node`` (tests of if/while/ternary are reached via their owner), named
    by this engine's operators."""
    for site in _library_sites(node, view, stringy, in_generator):
        yield site.named(_NAMES[site.operator])
