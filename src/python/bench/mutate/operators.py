"""The mutation engine's operators: which sites of the operator library (:mod:`bench.operators`) it proposes in
one function's AST, and under which names.

Every operator proposes :class:`bench.operators.sites.Site` records: a byte span of the file, replacement
texts in order of preference (the engine keeps the first whose re-parsed AST is exactly the intended node
change) and a builder of that intended node. Operators only look; the engine verifies, chooses and applies.

The bugs are meant to read like ones a person writes (engine version 2): a negation is written the way code
writes conditions, never as a ``not (...)`` wrapper the file uses nowhere else, and ``return None`` is only
proposed in a function that already returns None on another path.

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
``negate_condition``     an ``if`` / ``elif`` / ``while`` / conditional-expression test: ``not c`` → ``c``;
                         an atom ``c`` → ``not c``; ``a < b`` → ``a >= b`` (and the other orderings);
                         ``not (c)`` only in a file that already writes a condition that way
``return_none``          ``return X`` → ``return None`` where the function returns None on another path
                         (a bare ``return``, ``return None``, or falling off its end); not in generators,
                         not for None, False, NotImplemented
``boolean_swap``         ``and`` ↔ ``or``
``swapped_arguments``    two adjacent positional arguments of a call, both names or attributes, exchanged
``wrong_variable``       a local read where another was meant: one the function already holds (a parameter,
                         or assigned on an earlier line) and the statement does not mention
``dropped_clause``       one operand of an ``and`` / ``or`` left out (engine version 4: the omissions)
``dropped_case``         one case of three or more left out of ``x in (a, b, c)`` or ``isinstance(x, (A, B,
                         C))``
``dropped_clamp``        ``max(0, x)`` / ``min(x, limit)`` → ``x``
``dropped_normalisation`` ``s.strip()`` / ``.lower()`` / ``.upper()`` / ``.casefold()`` … → ``s``
``dropped_keyword``      a keyword argument with a literal value not passed (the call keeps another argument)
``dropped_f_prefix``     ``f"…{x}…"`` → ``"…{x}…"``
=======================  =================================================================================

Engine version 4 (``--engine-version 4``) adds the omissions; version 3, which made the committed pool, stays
the default. Read blind next to real bugs, neither version's mutants passed for real ones
(``docs/measurements/mutation-audit.md``).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Iterator

from bench.mutate._stringy import is_obviously_not_number, is_type_like
from bench.mutate.scope import is_version_check
from bench.operators import omissions, sites as families
from bench.operators.rewrites import (
    constant_sites,
    drop_not_sites,
    native_negation_sites,
    negation_sites,
    off_by_one_sites,
    return_none_sites,
    returns_nothing,
    swap_argument_sites,
    wrong_name_sites,
)
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
SWAPPED_ARGUMENTS = "swapped_arguments"
WRONG_VARIABLE = "wrong_variable"
DROPPED_CLAUSE = "dropped_clause"
DROPPED_CASE = "dropped_case"
DROPPED_CLAMP = "dropped_clamp"
DROPPED_NORMALISATION = "dropped_normalisation"
DROPPED_KEYWORD = "dropped_keyword"
DROPPED_F_PREFIX = "dropped_f_prefix"
OMISSIONS = (DROPPED_CLAUSE, DROPPED_CASE, DROPPED_CLAMP, DROPPED_NORMALISATION, DROPPED_KEYWORD, DROPPED_F_PREFIX)
# The operators of a near miss of a fix (test adequacy): fixed, so adequacy results stay comparable across
# engine versions (bench.mutate.engine.NEAR_MISS_VERSION keys them).
NEAR_MISS_OPERATORS = (
    COMPARISON,
    ARITHMETIC,
    CONSTANT_OFF_BY_ONE,
    SLICE_OFF_BY_ONE,
    NEGATE_CONDITION,
    RETURN_NONE,
    BOOLEAN_SWAP,
    SWAPPED_ARGUMENTS,
    WRONG_VARIABLE,
)
OPERATORS = NEAR_MISS_OPERATORS + OMISSIONS
# Chosen only where a function offers nothing else: a stub answer reads as a bug more easily than a slip.
LAST_RESORT = frozenset({RETURN_NONE})
# How often the engine's seeded choice lands on an operator, relative to the others a function offers: the
# slips people make most (a comparison's boundary) most; a confused name or argument order, which a reader can
# more often spot or which breaks loudly, least.
# How often the engine's seeded choice lands on an operator, relative to the others a function offers, per
# engine version. Version 3: the slips people make most (a comparison's boundary) most; a confused name or
# argument order, which a reader can more often spot or which breaks loudly, least. Version 4 adds the
# omissions and weighs them most: the bugs people ship are more often something left out than turned around.
WEIGHTS_3 = {COMPARISON: 3, ARITHMETIC: 2, CONSTANT_OFF_BY_ONE: 2, SLICE_OFF_BY_ONE: 2, NEGATE_CONDITION: 2,
             BOOLEAN_SWAP: 2, SWAPPED_ARGUMENTS: 1, WRONG_VARIABLE: 1, RETURN_NONE: 1}
WEIGHTS_4 = {COMPARISON: 2, ARITHMETIC: 1, CONSTANT_OFF_BY_ONE: 2, SLICE_OFF_BY_ONE: 2, NEGATE_CONDITION: 1,
             BOOLEAN_SWAP: 1, SWAPPED_ARGUMENTS: 1, WRONG_VARIABLE: 1, RETURN_NONE: 1,
             DROPPED_CLAUSE: 3, DROPPED_CASE: 3, DROPPED_CLAMP: 3, DROPPED_NORMALISATION: 3, DROPPED_KEYWORD: 2,
             DROPPED_F_PREFIX: 2}


@dataclass(frozen=True)
class EngineProfile:
    """What one engine version injects: its operators and their weights (the version is part of every seeded
    rank, so the same release, seed and version always give the same mutants)."""

    version: str
    operators: tuple[str, ...]
    weights: dict[str, int]
    refuse_anomalies: bool = False  # also refuse what bench.mutate.anomalies finds against the rest of the file


PROFILES = {
    "3": EngineProfile("3", NEAR_MISS_OPERATORS, WEIGHTS_3),
    "4": EngineProfile("4", OPERATORS, WEIGHTS_4, refuse_anomalies=True),
}
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
    families.SWAP_ARGUMENTS: SWAPPED_ARGUMENTS,
    families.WRONG_NAME: WRONG_VARIABLE,
    omissions.DROP_CLAUSE: DROPPED_CLAUSE,
    omissions.DROP_CASE: DROPPED_CASE,
    omissions.DROP_CLAMP: DROPPED_CLAMP,
    omissions.DROP_CALL: DROPPED_NORMALISATION,
    omissions.DROP_KEYWORD: DROPPED_KEYWORD,
    omissions.DROP_FORMAT: DROPPED_F_PREFIX,
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


_NOT_WRAPPER = re.compile(r"\bnot \(")


def writes_not_wrappers(file_text: str) -> bool:
    """Whether a file already writes a condition as ``not (...)``."""
    return bool(_NOT_WRAPPER.search(file_text))
_SELF_NAMES = frozenset({"self", "cls", "mcs", "metacls"})
# statement fields that hold nested statements (their own statements are visited on their own)
_BODIES = frozenset({"body", "orelse", "finalbody", "handlers", "cases"})


@dataclass(frozen=True, eq=False)
class FunctionFacts:
    """What the operators need to know of the function a node belongs to, computed once per function."""

    stringy: frozenset[str]  # names holding text or containers
    in_generator: bool
    local_names: frozenset[str]  # parameters (but self/cls) and names the function assigns
    defined_at: tuple[tuple[str, int], ...]  # each such name and the first line it holds a value from
    none_returned_elsewhere: frozenset[int]  # ids of the returns after which None is still returned elsewhere
    own: frozenset[int]  # ids of the nodes that are the function's own (fair game)
    file_wraps_not: bool  # the file already writes a condition as ``not (...)``


def can_fall_through(statements: list[ast.stmt]) -> bool:
    """Whether running ``statements`` can reach their end (a function's body: whether it can return None by
    running off it). Conservative: loops may always end, ``try`` ends if its body or any handler may."""
    if not statements:
        return True
    last = statements[-1]
    if isinstance(last, (ast.Return, ast.Raise)):
        return False
    if isinstance(last, ast.If):
        return can_fall_through(last.body) or can_fall_through(last.orelse)
    if isinstance(last, ast.Try) or type(last).__name__ == "TryStar":
        ends = can_fall_through(last.body + last.orelse) or any(can_fall_through(h.body) for h in last.handlers)
        return ends and can_fall_through(last.finalbody)
    if isinstance(last, (ast.With, ast.AsyncWith)):
        return can_fall_through(last.body)
    return True


def function_facts(function: ast.FunctionDef | ast.AsyncFunctionDef, own_nodes: tuple[ast.AST, ...], *,
                   stringy: frozenset[str], in_generator: bool, file_wraps_not: bool) -> FunctionFacts:
    arguments = function.args
    parameters = {a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs,
                                  arguments.vararg, arguments.kwarg) if a is not None}
    first_store: dict[str, int] = {}
    for n in own_nodes:
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
            first_store[n.id] = min(first_store.get(n.id, n.lineno), n.lineno)
    assigned = set(first_store)
    defined = {**{name: line for name, line in first_store.items()}, **{name: 0 for name in parameters}}
    returns = [n for n in own_nodes if isinstance(n, ast.Return)]
    falls_off_end = can_fall_through(function.body)
    none_paths = [r for r in returns if returns_nothing(r)]
    elsewhere = frozenset(id(r) for r in returns if falls_off_end or any(o is not r for o in none_paths))
    local_names = frozenset((parameters | assigned) - _SELF_NAMES)
    defined_at = tuple(sorted((name, line) for name, line in defined.items() if name in local_names))
    return FunctionFacts(stringy, in_generator, local_names, defined_at, elsewhere,
                         frozenset(id(n) for n in own_nodes), file_wraps_not)


def _negation_sites(test: ast.expr, view: SourceView, facts: FunctionFacts) -> Iterator[Site]:
    if isinstance(test, ast.Constant) or is_version_check(test):
        return  # `while True:`, `if PY3:`: negating a literal or an interpreter check is not a plausible bug
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        yield from drop_not_sites(test, view)
        return
    native = list(native_negation_sites(test, view))
    if native:
        yield from native
    elif facts.file_wraps_not and not isinstance(test, ast.Compare):
        yield from negation_sites(test, view)  # `not (a and b)`, as this file writes conditions


def _is_plausible_return(node: ast.Return, facts: FunctionFacts) -> bool:
    value = node.value
    # `return False` -> `return None` is the same answer wherever a predicate's result is used;
    # `return NotImplemented` belongs to the operator protocol, where None is not a plausible slip.
    if value is None or (isinstance(value, ast.Constant) and value.value in (None, False)):
        return False
    if isinstance(value, ast.Name) and value.id == "NotImplemented":
        return False
    return id(node) in facts.none_returned_elsewhere


def _swapped_argument_sites(node: ast.Call, view: SourceView) -> Iterator[Site]:
    """Adjacent positional arguments, both names or attributes of different text (the slip of a person
    writing the call; a swap of literals or of far-apart arguments reads as planted)."""
    adjacent = set()
    for first, second in zip(node.args, node.args[1:]):
        if isinstance(first, (ast.Name, ast.Attribute)) and isinstance(second, (ast.Name, ast.Attribute)):
            if view.text(view.start(first), view.end(first)) != view.text(view.start(second), view.end(second)):
                adjacent.add((view.start(first), view.end(second)))
    for site in swap_argument_sites(node, view):
        if (site.start, site.end) in adjacent:
            yield site


def _expression_roots(statement: ast.stmt) -> list[ast.AST]:
    roots = []
    for name, value in ast.iter_fields(statement):
        if name in _BODIES:
            continue
        roots.extend(v for v in (value if isinstance(value, list) else [value]) if isinstance(v, ast.AST))
    return roots


def _plain_reads(statement: ast.stmt, facts: FunctionFacts) -> list[ast.Name]:
    """The locals the statement reads as values: not the object of an attribute or a call (``rv.update`` →
    ``func.update`` reads as a typo of the eye, not of the mind), not unpacked with ``*`` / ``**``."""
    reads, todo = [], [(root, statement) for root in _expression_roots(statement)]
    while todo:
        node, parent = todo.pop()
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in facts.local_names:
            held = (isinstance(parent, (ast.Attribute, ast.Starred))
                    or (isinstance(parent, ast.Call) and parent.func is node)
                    or (isinstance(parent, ast.keyword) and parent.arg is None))
            if not held and id(node) in facts.own:
                reads.append(node)
        todo.extend((child, node) for child in ast.iter_child_nodes(node) if not isinstance(child, ast.stmt))
    return sorted(reads, key=lambda n: (n.lineno, n.col_offset))


def _wrong_variable_sites(statement: ast.stmt, view: SourceView, facts: FunctionFacts) -> Iterator[Site]:
    """Each local the statement reads replaced by another local that already holds a value there and that the
    statement does not mention: a name the author had in mind, not one that doubles up in plain sight
    (``rv[k] = v`` → ``v[k] = v``, ``f(a, b)`` → ``f(a, a)`` give themselves away)."""
    reads = _plain_reads(statement, facts)
    if not reads:
        return
    mentioned = {n.id for root in _expression_roots(statement) for n in ast.walk(root) if isinstance(n, ast.Name)}
    at_hand = tuple(name for name, line in facts.defined_at if line < statement.lineno and name not in mentioned)
    for node in reads:
        yield from wrong_name_sites(node, view, at_hand)


def _library_sites(node: ast.AST, view: SourceView, facts: FunctionFacts) -> Iterator[Site]:
    if isinstance(node, ast.Compare):
        yield from comparison_sites(node, view, _COMPARISON)
    elif isinstance(node, (ast.BinOp, ast.AugAssign)):
        if type(node.op) in _ARITHMETIC and _is_plausible_arithmetic(node, facts.stringy):
            yield from arithmetic_sites(node, view, _ARITHMETIC)
    elif isinstance(node, ast.Constant):
        yield from constant_sites(node, view)
    elif isinstance(node, ast.Slice):
        yield from _slice_sites(node, view)
    elif isinstance(node, ast.BoolOp):
        yield from boolean_sites(node, view)
        yield from omissions.drop_clause_sites(node, view)
    elif isinstance(node, ast.Call):
        yield from _swapped_argument_sites(node, view)
        yield from omissions.drop_clamp_sites(node, view)
        yield from omissions.drop_call_sites(node, view)
        yield from omissions.drop_keyword_sites(node, view)
    elif isinstance(node, ast.JoinedStr):
        yield from omissions.drop_format_sites(node, view)
    elif isinstance(node, ast.Return) and not facts.in_generator:
        if _is_plausible_return(node, facts):
            yield from return_none_sites(node, view)
    for collection in omissions.case_collections(node):
        yield from omissions.drop_case_sites(collection, view)
    if isinstance(node, (ast.If, ast.While, ast.IfExp)):
        yield from _negation_sites(node.test, view, facts)
    if isinstance(node, ast.stmt):
        yield from _wrong_variable_sites(node, view, facts)


def sites_of(node: ast.AST, view: SourceView, facts: FunctionFacts) -> Iterator[Site]:
    """Every site whose changed node is ``node`` (tests of if/while/ternary are reached via their owner, the
    names a statement reads via the statement), named by this engine's operators."""
    for site in _library_sites(node, view, facts):
        yield site.named(_NAMES[site.operator])
