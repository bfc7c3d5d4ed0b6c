"""Finders of the families that rewrite a whole expression or statement: integer literals ± 1, bounds ± 1,
negating a condition or dropping its ``not``, the value a ``return`` gives, and swapped call arguments.

Each yields :class:`bench.operators.sites.Site` records, like the token families' finders. Where the two users
spell a change differently the finder takes ``spell``; both spellings live here.
"""

from __future__ import annotations

import ast
from typing import Callable, Iterator

from bench.operators.sites import (
    BOUND,
    CONSTANT,
    DROP_NOT,
    NEGATE,
    RETURN_NAME,
    RETURN_NONE,
    SWAP_ARGUMENTS,
    WRONG_NAME,
    Site,
    comparison_sites,
    with_field,
)
from bench.operators.tables import DELTAS, NEGATED_ORDERINGS, OFF_BY_ONE, forward
from bench.operators.view import SourceView

# Expressions that never need parentheses when another operator is put next to them.
ATOMS = (ast.Name, ast.Attribute, ast.Call, ast.Subscript, ast.Constant, ast.List, ast.Tuple, ast.Dict)


# --- integer literals ----------------------------------------------------------------------------------------
def same_base_literal(value: int, like: str) -> str:
    """``value`` as one literal in the base ``like`` is written in ("" for a negative value: not one literal)."""
    if value < 0:
        return ""
    prefix = like[:2].lower()
    if prefix == "0x":
        return f"{like[:2]}{value:x}"
    if prefix == "0o":
        return f"{like[:2]}{value:o}"
    if prefix == "0b":
        return f"{like[:2]}{value:b}"
    return str(value)


def decimal_literal(value: int, like: str) -> str:
    """``value`` in decimal, a leading ``-`` included (an expression rather than one literal)."""
    return str(value)


def constant_sites(
    node: ast.Constant, view: SourceView, spell: Callable[[int, str], str] = same_base_literal
) -> Iterator[Site]:
    """``n`` → ``n + 1`` / ``n - 1`` for an integer literal, spelled by ``spell`` (nothing where it gives "")."""
    if type(node.value) is not int:  # bool is an int subclass; floats and strings are not ours
        return
    start, end = view.start(node), view.end(node)
    text = view.text(start, end)
    for delta in DELTAS:
        literal = spell(node.value + delta, text)
        if literal:
            yield Site(CONSTANT, node, ((start, end, literal),), with_field(value=node.value + delta))


# --- bounds --------------------------------------------------------------------------------------------------
def _binop_builder(op: type) -> Callable[[ast.AST], ast.AST]:
    def build(copy_of_target: ast.AST) -> ast.AST:
        return ast.BinOp(left=copy_of_target, op=op(), right=ast.Constant(value=1))

    return build


def off_by_one_sites(expression: ast.expr, view: SourceView) -> Iterator[Site]:
    """``x`` → ``x + 1`` and ``x - 1``, each spelled bare, then with ``x`` in parentheses."""
    start, end = view.start(expression), view.end(expression)
    text = view.text(start, end)
    for sign, op in OFF_BY_ONE:
        edits = ((start, end, f"{text} {sign} 1"), (start, end, f"({text}) {sign} 1"))
        yield Site(BOUND, expression, edits, _binop_builder(op))


# --- conditions ----------------------------------------------------------------------------------------------
def _negated(copy_of_target: ast.AST) -> ast.AST:
    return ast.UnaryOp(op=ast.Not(), operand=copy_of_target)


def _without_not(copy_of_target: ast.AST) -> ast.AST:
    return copy_of_target.operand


def negation_sites(test: ast.expr, view: SourceView) -> Iterator[Site]:
    """``c`` → ``not c``: bare only where ``c`` is an atom (``not a < b`` parses right but reads as a slip),
    always also as ``not (c)``."""
    start, end = view.start(test), view.end(test)
    text = view.text(start, end)
    bare, wrapped = (start, end, f"not {text}"), (start, end, f"not ({text})")
    edits = (bare, wrapped) if isinstance(test, ATOMS) else (wrapped,)
    yield Site(NEGATE, test, edits, _negated)


def native_negation_sites(test: ast.expr, view: SourceView) -> Iterator[Site]:
    """A condition negated the way code is written, never as a ``not (...)`` wrapper: an atom ``c`` → ``not c``;
    a single ordering comparison ``a < b`` → ``a >= b`` (``==``, ``is``, ``in`` are the comparison family's)."""
    if isinstance(test, (ast.Name, ast.Attribute, ast.Call, ast.Subscript)):
        start, end = view.start(test), view.end(test)
        yield Site(NEGATE, test, ((start, end, f"not {view.text(start, end)}"),), _negated)
    elif isinstance(test, ast.Compare) and len(test.ops) == 1 and type(test.ops[0]) in NEGATED_ORDERINGS:
        for site in comparison_sites(test, view, forward(NEGATED_ORDERINGS)):
            yield site.named(NEGATE)


def text_after_not(view: SourceView, node: ast.UnaryOp) -> str:
    """What follows the ``not`` keyword, blanks before it dropped (the layout inside stays as it was)."""
    text = view.text(view.start(node), view.end(node))
    return text[len("not") :].lstrip(" \t") if text.startswith("not") else ""


def parenthesised_operand(view: SourceView, node: ast.UnaryOp) -> str:
    """The operand's own text, in one pair of parentheses where the ``not`` had any."""
    start, operand_start = view.start(node), view.start(node.operand)
    operand = view.text(operand_start, view.end(node.operand))
    return f"({operand})" if "(" in view.text(start, operand_start) else operand


def drop_not_sites(
    node: ast.UnaryOp, view: SourceView, spell: Callable[[SourceView, ast.UnaryOp], str] = text_after_not
) -> Iterator[Site]:
    """``not c`` → ``c`` (``node`` is a ``not``), spelled by ``spell`` (nothing where it gives "")."""
    text = spell(view, node)
    if text:
        yield Site(DROP_NOT, node, ((view.start(node), view.end(node), text),), _without_not)


# --- returns -------------------------------------------------------------------------------------------------
def returns_nothing(node: ast.Return) -> bool:
    value = node.value
    return value is None or (isinstance(value, ast.Constant) and value.value is None)


def return_none_sites(node: ast.Return, view: SourceView) -> Iterator[Site]:
    """``return X`` → ``return None``, replacing from the value (or its opening parenthesis) to the statement's
    end, so no stray parentheses remain."""
    if returns_nothing(node):
        return
    keyword_end = view.start(node) + len("return")
    gap = view.data[keyword_end : view.start(node.value)]
    start = keyword_end + len(gap) - len(gap.lstrip(b" \t"))
    build = with_field(value=ast.Constant(value=None))
    yield Site(RETURN_NONE, node, ((start, view.end(node), "None"),), build)


def return_name_sites(node: ast.Return, view: SourceView, names: list[str] | tuple[str, ...]) -> Iterator[Site]:
    """``return`` / ``return None`` → ``return <name>`` for each of ``names`` (the way back from return-none)."""
    if not returns_nothing(node):
        return
    start, end = view.start(node), view.end(node)
    for name in names:
        build = with_field(value=ast.Name(id=name, ctx=ast.Load()))
        yield Site(RETURN_NAME, node, ((start, end, f"return {name}"),), build)


# --- names --------------------------------------------------------------------------------------------------
def wrong_name_sites(node: ast.Name, view: SourceView, alternatives: tuple[str, ...]) -> Iterator[Site]:
    """A name read where another was meant: ``node`` → each of ``alternatives`` (the caller says which names
    were at hand)."""
    start, end = view.start(node), view.end(node)
    for name in alternatives:
        if name != node.id:
            yield Site(WRONG_NAME, node, ((start, end, name),), with_field(id=name))


# --- call arguments ------------------------------------------------------------------------------------------
def _swapped_arguments(first: int, second: int) -> Callable[[ast.AST], ast.AST]:
    def build(copy_of_target: ast.AST) -> ast.AST:
        arguments = copy_of_target.args
        arguments[first], arguments[second] = arguments[second], arguments[first]
        return copy_of_target

    return build


def swap_argument_sites(node: ast.Call, view: SourceView) -> Iterator[Site]:
    """Two positional arguments of one AST node kind exchanged (none where an argument is starred)."""
    arguments = node.args
    if any(isinstance(argument, ast.Starred) for argument in arguments):
        return
    for i, first in enumerate(arguments):
        for j in range(i + 1, len(arguments)):
            second = arguments[j]
            if type(first) is not type(second):
                continue
            start, end = view.start(first), view.end(second)
            first_end, second_start = view.end(first), view.start(second)
            swapped = view.text(second_start, end) + view.text(first_end, second_start) + view.text(start, first_end)
            yield Site(SWAP_ARGUMENTS, node, ((start, end, swapped),), _swapped_arguments(i, j))
