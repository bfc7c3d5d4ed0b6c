"""Finders of the families that leave something out: the bugs people write most are omissions, not inversions.

A clause of a condition, a case of a membership or type test, a clamp, a normalising call, a keyword argument,
the ``f`` of an f-string: each is code a person forgets to write, and the code left reads as finished. A
reviewer who is told a bug is there finds an inverted test by the contradiction it leaves behind (a comment, a
twin, a message); a missing case leaves none.

Each yields :class:`bench.operators.sites.Site` records like the other families: the deleted bytes as the edit
and a builder of the node left behind. The engine verifies that the edit re-parses to exactly that node.
"""

from __future__ import annotations

import ast
import copy
from typing import Callable, Iterator

from bench import pyast
from bench.operators.sites import Site
from bench.operators.view import SourceView

DROP_CLAUSE = "drop-clause"
DROP_CASE = "drop-case"
DROP_CLAMP = "drop-clamp"
DROP_CALL = "drop-call"
DROP_KEYWORD = "drop-keyword"
DROP_FORMAT = "drop-format"

# String methods that normalise a value before it is compared or stored: forgetting one is a classic slip.
NORMALISING_METHODS = frozenset({"lower", "upper", "casefold", "strip", "lstrip", "rstrip"})
_CASE_NODES = (ast.Constant, ast.Name, ast.Attribute)


def _without(items: list, index: int) -> list:
    return items[:index] + items[index + 1:]


def _deletion(view: SourceView, items: list[ast.AST], index: int) -> tuple[int, int]:
    """The bytes to delete to drop ``items[index]`` with one separator (the one before it when it is last)."""
    if index + 1 < len(items):
        return view.start(items[index]), view.start(items[index + 1])
    return view.end(items[index - 1]), view.end(items[index])


# --- a clause of `and` / `or` --------------------------------------------------------------------------------
def _dropped_value(index: int) -> Callable[[ast.AST], ast.AST]:
    def build(copy_of_target: ast.AST) -> ast.AST:
        values = _without(copy_of_target.values, index)
        if len(values) == 1:
            return values[0]
        copy_of_target.values = values
        return copy_of_target

    return build


def drop_clause_sites(node: ast.BoolOp, view: SourceView) -> Iterator[Site]:
    """``a and b`` → ``a`` / ``b`` (one operand of an ``and`` / ``or`` left out)."""
    for index in range(len(node.values)):
        start, end = _deletion(view, node.values, index)
        yield Site(DROP_CLAUSE, node, ((start, end, ""),), _dropped_value(index))


# --- a case of a membership or type test ---------------------------------------------------------------------
def _dropped_element(index: int) -> Callable[[ast.AST], ast.AST]:
    def build(copy_of_target: ast.AST) -> ast.AST:
        copy_of_target.elts = _without(copy_of_target.elts, index)
        return copy_of_target

    return build


def case_collections(node: ast.AST) -> Iterator[ast.Tuple | ast.List | ast.Set]:
    """The literal collections ``node`` tests against: ``x in (a, b, c)``, ``isinstance(x, (A, B, C))``."""
    if isinstance(node, ast.Compare):
        for op, right in zip(node.ops, node.comparators):
            if isinstance(op, (ast.In, ast.NotIn)) and isinstance(right, (ast.Tuple, ast.List, ast.Set)):
                yield right
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("isinstance", "issubclass"):
        if len(node.args) == 2 and isinstance(node.args[1], ast.Tuple):
            yield node.args[1]


def drop_case_sites(collection: ast.Tuple | ast.List | ast.Set, view: SourceView) -> Iterator[Site]:
    """One case of three or more left out (two would leave a one-element collection, which no one writes)."""
    elements = collection.elts
    if len(elements) < 3 or not all(isinstance(e, _CASE_NODES) for e in elements):
        return
    for index in range(len(elements)):
        start, end = _deletion(view, elements, index)
        yield Site(DROP_CASE, collection, ((start, end, ""),), _dropped_element(index))


# --- a clamp, a normalising call -----------------------------------------------------------------------------
def _kept(which: Callable[[ast.AST], ast.AST]) -> Callable[[ast.AST], ast.AST]:
    return lambda copy_of_target: which(copy_of_target)


def drop_clamp_sites(node: ast.Call, view: SourceView) -> Iterator[Site]:
    """``max(0, x)`` → ``x``, ``min(x, limit)`` → ``x``: the bound a value was kept within, forgotten."""
    if not (isinstance(node.func, ast.Name) and node.func.id in ("min", "max")):
        return
    if len(node.args) != 2 or node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
        return
    start, end = view.start(node), view.end(node)
    for keep, other in ((0, 1), (1, 0)):
        if isinstance(node.args[keep], ast.Constant) or not isinstance(node.args[other], (ast.Constant, ast.Name,
                                                                                          ast.Attribute, ast.UnaryOp)):
            continue  # the bound is the literal or the simple name; the value kept is the expression
        text = view.text(view.start(node.args[keep]), view.end(node.args[keep]))
        yield Site(DROP_CLAMP, node, ((start, end, text), (start, end, f"({text})")),
                   _kept(lambda target, keep=keep: target.args[keep]))


def drop_call_sites(node: ast.Call, view: SourceView) -> Iterator[Site]:
    """``name.strip()`` → ``name``: a normalisation forgotten (``lower``, ``upper``, ``casefold``, the strips)."""
    func = node.func
    if not (isinstance(func, ast.Attribute) and func.attr in NORMALISING_METHODS) or node.args or node.keywords:
        return
    if isinstance(func.value, ast.Constant):
        return  # `"abc".upper()`: a literal normalised in place is not a value someone forgot to clean
    yield Site(DROP_CALL, node, ((view.end(func.value), view.end(node), ""),), _kept(lambda target: target.func.value))


# --- a keyword argument, an f-string's f ---------------------------------------------------------------------
def _dropped_keyword(index: int) -> Callable[[ast.AST], ast.AST]:
    def build(copy_of_target: ast.AST) -> ast.AST:
        copy_of_target.keywords = _without(copy_of_target.keywords, index)
        return copy_of_target

    return build


def drop_keyword_sites(node: ast.Call, view: SourceView) -> Iterator[Site]:
    """``f(x, strict=True)`` → ``f(x)``: a flag not passed on (a literal value, in a call that keeps another
    argument; ``**kwargs`` and a lone keyword are left alone)."""
    arguments = sorted([*node.args, *node.keywords], key=lambda a: (a.lineno, a.col_offset))
    if len(arguments) < 2:
        return
    for index, keyword in enumerate(node.keywords):
        if keyword.arg is None or not isinstance(keyword.value, ast.Constant):
            continue
        position = arguments.index(keyword)
        start, end = _deletion(view, arguments, position)
        yield Site(DROP_KEYWORD, node, ((start, end, ""),), _dropped_keyword(index))


def drop_format_sites(node: ast.JoinedStr, view: SourceView) -> Iterator[Site]:
    """``f"… {x} …"`` → ``"… {x} …"``: the ``f`` forgotten, so the placeholder is printed as written."""
    if not any(isinstance(value, ast.FormattedValue) for value in node.values):
        return
    start, end = view.start(node), view.end(node)
    text = view.text(start, end)
    if text[:1] not in ("f", "F") or text[1:2] not in ("'", '"'):
        return
    try:
        plain = pyast.parse(text[1:], mode="eval").body
    except SyntaxError:
        return
    if not (isinstance(plain, ast.Constant) and isinstance(plain.value, str)):
        return  # an implicitly joined string with another f-part: not one forgotten prefix
    yield Site(DROP_FORMAT, node, ((start, start + 1, ""),), _kept(lambda target: copy.deepcopy(plain)))
