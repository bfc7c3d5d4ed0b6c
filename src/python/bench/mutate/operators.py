"""Mutation operators: where in one function's AST a single-site bug can be injected, and as which text.

Every operator proposes :class:`RawSite` records: a byte span of the file, replacement texts in order of
preference (the engine keeps the first whose re-parsed AST is exactly the intended node change) and a builder
of that intended node. Operators only look; the engine verifies, chooses and applies.

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
import copy
import re
from dataclasses import dataclass
from typing import Callable, Iterator

from bench.mutate._stringy import is_obviously_not_number, is_type_like
from bench.mutate.scope import is_version_check

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

# AST operator type -> (its source token, the mutated token, the mutated AST operator type)
_COMPARE_SWAPS: dict[type, tuple[str, str, type]] = {
    ast.Lt: ("<", "<=", ast.LtE),
    ast.LtE: ("<=", "<", ast.Lt),
    ast.Gt: (">", ">=", ast.GtE),
    ast.GtE: (">=", ">", ast.Gt),
    ast.Eq: ("==", "!=", ast.NotEq),
    ast.NotEq: ("!=", "==", ast.Eq),
    ast.Is: ("is", "is not", ast.IsNot),
    ast.IsNot: ("is not", "is", ast.Is),
    ast.In: ("in", "not in", ast.NotIn),
    ast.NotIn: ("not in", "in", ast.In),
}
_ARITHMETIC_SWAPS: dict[type, tuple[str, str, type]] = {
    ast.Add: ("+", "-", ast.Sub),
    ast.Sub: ("-", "+", ast.Add),
    ast.Mult: ("*", "/", ast.Div),
    ast.Div: ("/", "*", ast.Mult),
    ast.FloorDiv: ("//", "/", ast.Div),
    ast.Mod: ("%", "//", ast.FloorDiv),
    ast.Pow: ("**", "*", ast.Mult),
    ast.LShift: ("<<", ">>", ast.RShift),
    ast.RShift: (">>", "<<", ast.LShift),
    ast.BitAnd: ("&", "|", ast.BitOr),
    ast.BitOr: ("|", "&", ast.BitAnd),
    ast.BitXor: ("^", "&", ast.BitAnd),
}
_BOOLEAN_SWAPS: dict[type, tuple[str, str, type]] = {
    ast.And: ("and", "or", ast.Or),
    ast.Or: ("or", "and", ast.And),
}
# Expressions that never need parentheses when another operator is put next to them.
_ATOMS = (ast.Name, ast.Attribute, ast.Call, ast.Subscript, ast.Constant, ast.List, ast.Tuple, ast.Dict)


Edit = tuple[int, int, str]  # replace bytes [start, end) by the text


@dataclass(frozen=True, eq=False)
class RawSite:
    """A proposed single-site change, before verification. ``target`` is the AST node that changes.

    ``edits`` are alternative spellings of the same change, in order of preference (e.g. without, then with
    parentheses); the engine keeps the first whose re-parsed AST is exactly ``build``'s node in place.
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


@dataclass(frozen=True)
class SourceView:
    """One file's bytes with the (line, UTF-8 column) → byte offset mapping the AST positions need."""

    data: bytes
    line_starts: tuple[int, ...]

    @classmethod
    def of(cls, data: bytes) -> SourceView:
        starts = [0]
        starts.extend(match.end() for match in re.finditer(rb"\n", data))
        return cls(data, tuple(starts))

    def start(self, node: ast.AST) -> int:
        return self.line_starts[node.lineno - 1] + node.col_offset

    def end(self, node: ast.AST) -> int:
        return self.line_starts[node.end_lineno - 1] + node.end_col_offset

    def text(self, start: int, end: int) -> str:
        return self.data[start:end].decode("utf-8")


_WORD = re.compile(rb"[A-Za-z_]+")
_SYMBOL = re.compile(rb"[-+*/%&|^~@<>=!]+")


def gap_tokens(view: SourceView, start: int, end: int) -> list[tuple[int, int, str]]:
    """The operator tokens between two operands: everything but blanks, parentheses, continuations, comments."""
    tokens = []
    data, pos = view.data, start
    while pos < end:
        char = data[pos : pos + 1]
        if char in b" \t\r\n\f\\()":
            pos += 1
        elif char == b"#":
            newline = data.find(b"\n", pos, end)
            pos = end if newline < 0 else newline
        else:
            match = (_WORD if char.isalpha() or char == b"_" else _SYMBOL).match(data, pos, end)
            if match is None:
                return []  # something unexpected between the operands: propose nothing here
            tokens.append((match.start(), match.end(), match.group().decode()))
            pos = match.end()
    return tokens


def _operator_span(view: SourceView, before: ast.AST, after: ast.AST, token: str) -> tuple[int, int] | None:
    """The byte span of ``token`` (one or two words, e.g. ``not in``) between two operand nodes."""
    tokens = gap_tokens(view, view.end(before), view.start(after))
    if " ".join(text for _, _, text in tokens) != token:
        return None
    return tokens[0][0], tokens[-1][1]


def _with_field(**changes: object) -> Callable[[ast.AST], ast.AST]:
    def build(copy_of_target: ast.AST) -> ast.AST:
        for name, value in changes.items():
            setattr(copy_of_target, name, value)
        return copy_of_target

    return build


def comparison_sites(node: ast.Compare, view: SourceView) -> Iterator[RawSite]:
    operands = [node.left, *node.comparators]
    for position, op in enumerate(node.ops):
        token, replacement, new_op = _COMPARE_SWAPS[type(op)]
        span = _operator_span(view, operands[position], operands[position + 1], token)
        if span is None:
            continue
        new_ops = [copy.deepcopy(o) for o in node.ops]
        new_ops[position] = new_op()
        yield RawSite(COMPARISON, node, ((*span, replacement),), _with_field(ops=new_ops))


def arithmetic_sites(node: ast.BinOp | ast.AugAssign, view: SourceView, stringy: frozenset[str]) -> Iterator[RawSite]:
    swap = _ARITHMETIC_SWAPS.get(type(node.op))
    if swap is None:
        return
    token, replacement, new_op = swap
    left = node.left if isinstance(node, ast.BinOp) else node.target
    right = node.right if isinstance(node, ast.BinOp) else node.value
    if is_obviously_not_number(left, stringy) or is_obviously_not_number(right, stringy):
        return
    if isinstance(node.op, ast.Mod) and isinstance(right, (ast.Tuple, ast.Dict)):
        return  # `fmt % (a, b)`: string formatting whatever `fmt` is
    if isinstance(node.op, (ast.BitOr, ast.BitAnd)) and (is_type_like(left) or is_type_like(right)):
        return  # `int | None`: a union of types
    if isinstance(node, ast.AugAssign):
        token, replacement = token + "=", replacement + "="
    span = _operator_span(view, left, right, token)
    if span is not None:
        yield RawSite(ARITHMETIC, node, ((*span, replacement),), _with_field(op=new_op()))


def _int_literal(value: int, like: str) -> str:
    prefix = like[:2].lower()
    if prefix == "0x":
        return f"{like[:2]}{value:x}" if value >= 0 else ""
    if prefix == "0o":
        return f"{like[:2]}{value:o}" if value >= 0 else ""
    if prefix == "0b":
        return f"{like[:2]}{value:b}" if value >= 0 else ""
    return str(value)


def constant_sites(node: ast.Constant, view: SourceView) -> Iterator[RawSite]:
    if type(node.value) is not int:  # bool is an int subclass; floats and strings are not ours
        return
    start, end = view.start(node), view.end(node)
    text = view.text(start, end)
    deltas = (1, -1) if node.value > 0 else (1,)
    for delta in deltas:
        literal = _int_literal(node.value + delta, text)
        if literal:
            build = _with_field(value=node.value + delta)
            yield RawSite(CONSTANT_OFF_BY_ONE, node, ((start, end, literal),), build)


def _is_literal_bound(bound: ast.expr) -> bool:
    if isinstance(bound, ast.UnaryOp) and isinstance(bound.op, (ast.USub, ast.UAdd)):
        bound = bound.operand
    return isinstance(bound, ast.Constant)


def slice_sites(node: ast.Slice, view: SourceView) -> Iterator[RawSite]:
    for bound in (node.lower, node.upper):
        if bound is None or _is_literal_bound(bound):
            continue  # literal bounds are the constant operator's
        start, end = view.start(bound), view.end(bound)
        text = view.text(start, end)
        for sign, op in (("+", ast.Add), ("-", ast.Sub)):
            edits = ((start, end, f"{text} {sign} 1"), (start, end, f"({text}) {sign} 1"))
            yield RawSite(SLICE_OFF_BY_ONE, bound, edits, _binop_builder(op))


def _binop_builder(op: type) -> Callable[[ast.AST], ast.AST]:
    def build(copy_of_target: ast.AST) -> ast.AST:
        return ast.BinOp(left=copy_of_target, op=op(), right=ast.Constant(value=1))

    return build


def _negated(copy_of_target: ast.AST) -> ast.AST:
    return ast.UnaryOp(op=ast.Not(), operand=copy_of_target)


def _without_not(copy_of_target: ast.AST) -> ast.AST:
    return copy_of_target.operand


def negation_sites(test: ast.expr, view: SourceView) -> Iterator[RawSite]:
    if isinstance(test, ast.Constant) or is_version_check(test):
        return  # `while True:`, `if PY3:`: negating a literal or an interpreter check is not a plausible bug
    start, end = view.start(test), view.end(test)
    text = view.text(start, end)
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        rest = text[len("not") :].lstrip(" \t")
        if text.startswith("not") and rest:
            yield RawSite(NEGATE_CONDITION, test, ((start, end, rest),), _without_not)
        return
    bare, wrapped = (start, end, f"not {text}"), (start, end, f"not ({text})")
    # `not a < b` parses as intended but reads as a slip; only names, calls and the like go bare.
    edits = (bare, wrapped) if isinstance(test, _ATOMS) else (wrapped,)
    yield RawSite(NEGATE_CONDITION, test, edits, _negated)


def return_sites(node: ast.Return, view: SourceView) -> Iterator[RawSite]:
    value = node.value
    # `return False` -> `return None` is the same answer wherever a predicate's result is used;
    # `return NotImplemented` belongs to the operator protocol, where None is not a plausible slip.
    if value is None or (isinstance(value, ast.Constant) and value.value in (None, False)):
        return
    if isinstance(value, ast.Name) and value.id == "NotImplemented":
        return
    # From the value (or its opening parenthesis) to the statement's end, so no stray parentheses remain.
    keyword_end = view.start(node) + len("return")
    gap = view.data[keyword_end : view.start(value)]
    start = keyword_end + len(gap) - len(gap.lstrip(b" \t"))
    build = _with_field(value=ast.Constant(value=None))
    yield RawSite(RETURN_NONE, node, ((start, view.end(node), "None"),), build)


def boolean_sites(node: ast.BoolOp, view: SourceView) -> Iterator[RawSite]:
    token, replacement, new_op = _BOOLEAN_SWAPS[type(node.op)]
    spans = []
    for before, after in zip(node.values, node.values[1:]):
        span = _operator_span(view, before, after, token)
        if span is None:
            return
        spans.append(span)
    node_start, node_end = view.start(node), view.end(node)
    keywords_start, keywords_end = spans[0][0], spans[-1][1]
    swapped_keywords = _replace_spans(view, keywords_start, keywords_end, spans, replacement)
    whole = "(" + _replace_spans(view, node_start, node_end, spans, replacement) + ")"
    # When the swap changes how the expression groups with its neighbours, parenthesise the whole node.
    edits = ((keywords_start, keywords_end, swapped_keywords), (node_start, node_end, whole))
    yield RawSite(BOOLEAN_SWAP, node, edits, _with_field(op=new_op()))


def _replace_spans(view: SourceView, start: int, end: int, spans: list[tuple[int, int]], text: str) -> str:
    pieces, pos = [], start
    for span_start, span_end in spans:
        pieces.append(view.text(pos, span_start))
        pieces.append(text)
        pos = span_end
    pieces.append(view.text(pos, end))
    return "".join(pieces)


def sites_of(node: ast.AST, view: SourceView, *, stringy: frozenset[str], in_generator: bool) -> Iterator[RawSite]:
    """Every raw site whose changed node is ``node`` (tests of if/while/ternary are reached via their owner)."""
    if isinstance(node, ast.Compare):
        yield from comparison_sites(node, view)
    elif isinstance(node, (ast.BinOp, ast.AugAssign)):
        yield from arithmetic_sites(node, view, stringy)
    elif isinstance(node, ast.Constant):
        yield from constant_sites(node, view)
    elif isinstance(node, ast.Slice):
        yield from slice_sites(node, view)
    elif isinstance(node, ast.BoolOp):
        yield from boolean_sites(node, view)
    elif isinstance(node, ast.Return) and not in_generator:
        yield from return_sites(node, view)
    if isinstance(node, (ast.If, ast.While, ast.IfExp)):
        yield from negation_sites(node.test, view)
