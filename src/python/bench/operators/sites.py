"""The site record and the finders of the families that swap an operator token (comparison, arithmetic, boolean).

A finder looks at one AST node and yields :class:`Site` records: the node that changes, the edit (a byte span
and its new text, with alternative spellings of the same change in order of preference) and a builder of the
intended new node. Finders only look; which sites a user keeps, and which spelling, is the user's policy.
Where the two users locate a token differently the finder takes ``locate`` (see :mod:`bench.operators.tokens`);
where they derive different changes from one table it takes ``swaps`` (see :mod:`bench.operators.tables`).
"""

from __future__ import annotations

import ast
import copy
from dataclasses import dataclass, replace
from typing import Callable, Iterator

from bench.operators.tables import BOOLEAN_SWAPS, Swaps
from bench.operators.tokens import TOKENS, Locate, Span, exact_span
from bench.operators.view import SourceView

# Family names (each user names its operators in its own words; see the package docstring)
COMPARISON = "comparison"
ARITHMETIC = "arithmetic"
BOOLEAN = "boolean"
CONSTANT = "constant"
BOUND = "bound"
NEGATE = "negate"
DROP_NOT = "drop-not"
RETURN_NONE = "return-none"
RETURN_NAME = "return-name"
SWAP_ARGUMENTS = "swap-args"
WRONG_NAME = "wrong-name"

Edit = tuple[int, int, str]  # replace bytes [start, end) by the text


@dataclass(frozen=True, eq=False)
class Site:
    """A proposed single-site change, before any check. ``target`` is the AST node that changes.

    ``edits`` are alternative spellings of the same change, in order of preference (e.g. without, then with
    parentheses). ``operator`` is the family's name until a user renames the site (:meth:`named`).
    """

    operator: str
    target: ast.AST
    edits: tuple[Edit, ...]
    build: Callable[[ast.AST], ast.AST]  # from a copy of ``target``, the intended new node

    @property
    def start(self) -> int:
        return self.edits[0][0]

    @property
    def end(self) -> int:
        return self.edits[0][1]

    def named(self, operator: str) -> Site:
        return replace(self, operator=operator)


def with_field(**changes: object) -> Callable[[ast.AST], ast.AST]:
    """A builder setting fields of the copied target."""

    def build(copy_of_target: ast.AST) -> ast.AST:
        for name, value in changes.items():
            setattr(copy_of_target, name, value)
        return copy_of_target

    return build


def comparison_sites(node: ast.Compare, view: SourceView, swaps: Swaps, locate: Locate = exact_span) -> Iterator[Site]:
    """One site per comparison operator of ``node`` and per type ``swaps`` turns it into."""
    operands = [node.left, *node.comparators]
    for position, op in enumerate(node.ops):
        span = locate(view, view.end(operands[position]), view.start(operands[position + 1]), TOKENS[type(op)])
        if span is None:
            continue
        for new_op in swaps.get(type(op), ()):
            new_ops = [copy.deepcopy(o) for o in node.ops]
            new_ops[position] = new_op()
            yield Site(COMPARISON, node, ((*span, TOKENS[new_op].text),), with_field(ops=new_ops))


def arithmetic_operands(node: ast.BinOp | ast.AugAssign) -> tuple[ast.expr, ast.expr]:
    if isinstance(node, ast.BinOp):
        return node.left, node.right
    return node.target, node.value


def arithmetic_sites(
    node: ast.BinOp | ast.AugAssign, view: SourceView, swaps: Swaps, locate: Locate = exact_span
) -> Iterator[Site]:
    """One site per type ``swaps`` turns the operator into (``+=`` → ``-=`` and so on for augmented ones)."""
    new_ops = swaps.get(type(node.op))
    if not new_ops:
        return
    left, right = arithmetic_operands(node)
    augmented = isinstance(node, ast.AugAssign)
    token = TOKENS[type(node.op)]
    span = locate(view, view.end(left), view.start(right), token.augmented() if augmented else token)
    if span is None:
        return
    for new_op in new_ops:
        text = TOKENS[new_op].text + ("=" if augmented else "")
        yield Site(ARITHMETIC, node, ((*span, text),), with_field(op=new_op()))


def keyword_spans(node: ast.BoolOp, view: SourceView, locate: Locate = exact_span) -> list[Span | None]:
    """The span of each ``and`` / ``or`` keyword between the values of ``node`` (None where not found)."""
    token = TOKENS[type(node.op)]
    values = node.values
    return [locate(view, view.end(before), view.start(after), token) for before, after in zip(values, values[1:])]


def replace_spans(view: SourceView, start: int, end: int, spans: list[Span], text: str) -> str:
    """The text of bytes ``start:end`` with each of ``spans`` (in order, inside it) replaced by ``text``."""
    pieces, pos = [], start
    for span_start, span_end in spans:
        pieces.append(view.text(pos, span_start))
        pieces.append(text)
        pos = span_end
    pieces.append(view.text(pos, end))
    return "".join(pieces)


def boolean_sites(node: ast.BoolOp, view: SourceView) -> Iterator[Site]:
    """``and`` ↔ ``or`` for every keyword of the node at once; nothing unless each keyword is found."""
    spans = keyword_spans(node, view)
    if None in spans:
        return
    new_op = BOOLEAN_SWAPS[type(node.op)]
    replacement = TOKENS[new_op].text
    node_start, node_end = view.start(node), view.end(node)
    keywords_start, keywords_end = spans[0][0], spans[-1][1]
    swapped_keywords = replace_spans(view, keywords_start, keywords_end, spans, replacement)
    whole = "(" + replace_spans(view, node_start, node_end, spans, replacement) + ")"
    # When the swap changes how the expression groups with its neighbours, parenthesise the whole node.
    edits = ((keywords_start, keywords_end, swapped_keywords), (node_start, node_end, whole))
    yield Site(BOOLEAN, node, edits, with_field(op=new_op()))
