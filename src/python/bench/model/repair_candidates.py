"""Single-site program mutations found through Python's AST, applied as byte-span replacements.

Each :class:`Mutation` replaces one contiguous byte span of the original file with new text, so formatting,
comments and every other byte stay as they were. Line numbers never shift: no operator inserts or removes a
newline. The operator set is the classic one of mutation testing and of search-based repair:

================  ==================================================================================
operator          what it does
================  ==================================================================================
``cmp``           ``<`` ↔ ``<=``, ``>`` ↔ ``>=``, ``==`` ↔ ``!=``, ``is`` ↔ ``is not``, ``in`` ↔ ``not in``
``arith``         ``+`` ↔ ``-``, ``*`` ↔ ``//``, ``//`` ↔ ``/``, ``*`` ↔ ``/``, ``%`` ↔ ``//``, ``**`` ↔ ``*``,
                  ``<<`` ↔ ``>>``, ``&`` ↔ ``|``, ``&`` ↔ ``^`` (also augmented ``+=`` …)
``const``         an integer constant ``n`` → ``n + 1`` / ``n - 1``
``bound``         a non-constant slice bound, index or ``range()`` argument ``x`` → ``x + 1`` / ``x - 1``
``negate``        an ``if`` / ``while`` / conditional-expression test ``c`` → ``not (c)``
``boolop``        ``and`` ↔ ``or``
``drop-not``      ``not x`` → ``x``
``return``        ``return`` / ``return None`` → ``return <name>`` (a parameter or local of the function)
``swap-args``     two positional arguments of one call, of the same AST node kind, exchanged
================  ==================================================================================

Mutants that reproduce the original text or an earlier mutant's text are dropped. The operators keep the
syntax valid by construction; :func:`parses` checks a mutant when it is about to be used, because parsing
every mutant of a large module up front costs seconds.
"""

from __future__ import annotations

import ast
import hashlib
import re
from dataclasses import dataclass
from typing import Iterator

_CMP_SWAPS: dict[type, tuple[str, str, str]] = {
    # AST op type -> (regex finding the operator token in the gap, its replacement, display of the original)
    ast.Lt: (r"<(?!=)", "<=", "<"),
    ast.LtE: (r"<=", "<", "<="),
    ast.Gt: (r">(?!=)", ">=", ">"),
    ast.GtE: (r">=", ">", ">="),
    ast.Eq: (r"==", "!=", "=="),
    ast.NotEq: (r"!=", "==", "!="),
    ast.IsNot: (r"\bis\s+not\b", "is", "is not"),
    ast.Is: (r"\bis\b", "is not", "is"),
    ast.NotIn: (r"\bnot\s+in\b", "in", "not in"),
    ast.In: (r"\bin\b", "not in", "in"),
}

_ARITH_SWAPS: dict[type, tuple[str, tuple[str, ...]]] = {
    # AST op type -> (regex finding the operator token in the gap, replacements). Besides the classic swaps
    # this holds the inverse of every arithmetic change the mutation-task engine injects (bench.mutate), so
    # the repairer can undo any of them.
    ast.Add: (r"\+", ("-",)),
    ast.Sub: (r"-", ("+",)),
    ast.Mult: (r"(?<!\*)\*(?!\*)", ("//", "/", "**")),
    ast.FloorDiv: (r"//", ("*", "/", "%")),
    ast.Div: (r"(?<!/)/(?!/)", ("//", "*")),
    ast.Mod: (r"%", ("//",)),
    ast.Pow: (r"\*\*", ("*",)),
    ast.LShift: (r"<<", (">>",)),
    ast.RShift: (r">>", ("<<",)),
    ast.BitAnd: (r"&", ("|", "^")),
    ast.BitOr: (r"\|", ("&",)),
    ast.BitXor: (r"\^", ("&",)),
}

_SIMPLE_EXPRESSIONS = (ast.Name, ast.Attribute, ast.Call, ast.Subscript, ast.Constant)
_MAX_RETURN_NAMES = 4


@dataclass(frozen=True)
class Mutation:
    """Replace ``original`` (bytes ``start:end`` of ``path``'s UTF-8 text) with ``replacement``."""

    path: str
    operator: str
    start: int
    end: int
    original: str
    replacement: str
    lineno: int
    function: str  # innermost enclosing function ("" at module level)

    @property
    def key(self) -> str:
        """Stable identity of the candidate within one base program (short, no spaces)."""
        identity = f"{self.path}\0{self.start}\0{self.end}\0{self.operator}\0{self.replacement}"
        return hashlib.sha256(identity.encode("utf-8")).hexdigest()[:16]

    def describe(self) -> str:
        where = f"{self.path}:{self.lineno}" + (f" in {self.function}" if self.function else "")
        return f"{self.operator} {self.original!r} -> {self.replacement!r} at {where}"


def apply_mutation(source: str, mutation: Mutation) -> str:
    data = source.encode("utf-8")
    if data[mutation.start : mutation.end].decode("utf-8") != mutation.original:
        raise ValueError(f"mutation does not fit this source: {mutation.describe()}")
    return (data[: mutation.start] + mutation.replacement.encode("utf-8") + data[mutation.end :]).decode("utf-8")


def enumerate_mutations(path: str, source: str) -> tuple[Mutation, ...]:
    """Every distinct single-site mutant of ``source`` in a deterministic (source) order."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return ()
    finder = _Finder(path, source)
    finder.visit(tree)
    seen_texts = {source}
    kept = []
    for mutation in sorted(finder.found, key=lambda m: (m.start, m.end, m.operator, m.replacement)):
        text = apply_mutation(source, mutation)
        if text in seen_texts:
            continue
        seen_texts.add(text)
        kept.append(mutation)
    return tuple(kept)


def parses(text: str) -> bool:
    try:
        ast.parse(text)
    except SyntaxError:
        return False
    return True


class _Finder(ast.NodeVisitor):
    def __init__(self, path: str, source: str) -> None:
        self.path = path
        self.data = source.encode("utf-8")
        self.line_starts = _line_starts(self.data)
        self.found: list[Mutation] = []
        self.functions: list[ast.FunctionDef | ast.AsyncFunctionDef] = []

    # --- positions -------------------------------------------------------------------------------------
    def _start(self, node: ast.AST) -> int:
        return self.line_starts[node.lineno - 1] + node.col_offset

    def _end(self, node: ast.AST) -> int:
        return self.line_starts[node.end_lineno - 1] + node.end_col_offset

    def _text(self, start: int, end: int) -> str:
        return self.data[start:end].decode("utf-8")

    def _lineno(self, offset: int) -> int:
        return self.data.count(b"\n", 0, offset) + 1

    def _add(self, operator: str, start: int, end: int, replacement: str) -> None:
        function = self.functions[-1].name if self.functions else ""
        original = self._text(start, end)
        if original == replacement:
            return
        self.found.append(
            Mutation(self.path, operator, start, end, original, replacement, self._lineno(start), function)
        )

    def _add_in_gap(self, operator: str, gap_start: int, gap_end: int, pattern: str, replacement: str) -> None:
        """Replace the operator token found by ``pattern`` between two operands (ignoring a trailing comment)."""
        gap = self._text(gap_start, gap_end)
        match = re.search(pattern, gap.split("#", 1)[0])
        if match is None:
            return
        token_start = gap_start + len(gap[: match.start()].encode("utf-8"))
        token_end = gap_start + len(gap[: match.end()].encode("utf-8"))
        self._add(operator, token_start, token_end, replacement)

    # --- scopes ----------------------------------------------------------------------------------------
    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self.functions.append(node)
        self.generic_visit(node)
        self.functions.pop()

    visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]

    # --- operators -------------------------------------------------------------------------------------
    def visit_Compare(self, node: ast.Compare) -> None:
        operands = [node.left, *node.comparators]
        for op, left, right in zip(node.ops, operands, operands[1:]):
            pattern, replacement, _ = _CMP_SWAPS[type(op)]
            self._add_in_gap("cmp", self._end(left), self._start(right), pattern, replacement)
        self.generic_visit(node)

    def visit_BinOp(self, node: ast.BinOp) -> None:
        swap = _ARITH_SWAPS.get(type(node.op))
        if swap is not None:
            pattern, replacements = swap
            for replacement in replacements:
                self._add_in_gap("arith", self._end(node.left), self._start(node.right), pattern, replacement)
        self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        swap = _ARITH_SWAPS.get(type(node.op))
        if swap is not None:
            pattern, replacements = swap
            for replacement in replacements:
                self._add_in_gap(
                    "arith", self._end(node.target), self._start(node.value), pattern + "=", replacement + "="
                )
        self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        value = node.value
        if isinstance(value, int) and not isinstance(value, bool):
            start, end = self._start(node), self._end(node)
            self._add("const", start, end, str(value + 1))
            self._add("const", start, end, str(value - 1))

    def visit_Slice(self, node: ast.Slice) -> None:
        for bound in (node.lower, node.upper):
            self._off_by_one(bound)
        self.generic_visit(node)

    def visit_Subscript(self, node: ast.Subscript) -> None:
        if not isinstance(node.slice, (ast.Slice, ast.Tuple)) and isinstance(node.ctx, ast.Load):
            self._off_by_one(node.slice)
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        if isinstance(node.func, ast.Name) and node.func.id == "range":
            for argument in node.args:
                self._off_by_one(argument)
        self._swap_arguments(node)
        self.generic_visit(node)

    def _off_by_one(self, expression: ast.expr | None) -> None:
        # Integer constants are already covered by the ``const`` operator.
        if expression is None or isinstance(expression, (ast.Constant, ast.Starred)):
            return
        start, end = self._start(expression), self._end(expression)
        text = self._text(start, end)
        if "\n" in text:
            return
        inner = text if isinstance(expression, _SIMPLE_EXPRESSIONS) else f"({text})"
        self._add("bound", start, end, f"{inner} + 1")
        self._add("bound", start, end, f"{inner} - 1")

    def _swap_arguments(self, node: ast.Call) -> None:
        arguments = node.args
        if any(isinstance(argument, ast.Starred) for argument in arguments):
            return
        for i, first in enumerate(arguments):
            for second in arguments[i + 1 :]:
                if type(first) is not type(second):
                    continue
                start, end = self._start(first), self._end(second)
                first_end, second_start = self._end(first), self._start(second)
                swapped = (
                    self._text(second_start, end)
                    + self._text(first_end, second_start)
                    + self._text(start, first_end)
                )
                self._add("swap-args", start, end, swapped)

    def visit_If(self, node: ast.If) -> None:
        self._negate(node.test)
        self.generic_visit(node)

    visit_While = visit_If  # type: ignore[assignment]
    visit_IfExp = visit_If  # type: ignore[assignment]

    def _negate(self, test: ast.expr) -> None:
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            return  # ``drop-not`` covers it
        start, end = self._start(test), self._end(test)
        self._add("negate", start, end, f"not ({self._text(start, end)})")

    def visit_BoolOp(self, node: ast.BoolOp) -> None:
        old, new = ("and", "or") if isinstance(node.op, ast.And) else ("or", "and")
        start, end = self._start(node.values[0]), self._end(node.values[-1])
        pieces = [self._text(start, self._end(node.values[0]))]
        for left, right in zip(node.values, node.values[1:]):
            gap = self._text(self._end(left), self._start(right))
            pieces.append(re.sub(rf"\b{old}\b", new, gap, count=1))
            pieces.append(self._text(self._start(right), self._end(right)))
        self._add("boolop", start, end, "".join(pieces))
        self.generic_visit(node)

    def visit_UnaryOp(self, node: ast.UnaryOp) -> None:
        if isinstance(node.op, ast.Not):
            start, end = self._start(node), self._end(node)
            operand_start, operand_end = self._start(node.operand), self._end(node.operand)
            operand = self._text(operand_start, operand_end)
            parenthesised = "(" in self._text(start, operand_start)
            self._add("drop-not", start, end, f"({operand})" if parenthesised else operand)
        self.generic_visit(node)

    def visit_Return(self, node: ast.Return) -> None:
        returns_nothing = node.value is None or (
            isinstance(node.value, ast.Constant) and node.value.value is None
        )
        if returns_nothing and self.functions:
            start, end = self._start(node), self._end(node)
            for name in _names_of(self.functions[-1])[:_MAX_RETURN_NAMES]:
                self._add("return", start, end, f"return {name}")
        self.generic_visit(node)


def _names_of(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    """Parameters and locally bound names of ``function``, locals first (most likely the result), in order."""
    local_names: list[str] = []
    for node in _walk_own_body(function):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For)):
            targets = [node.target]
        for target in targets:
            for name_node in ast.walk(target):
                if isinstance(name_node, ast.Name) and name_node.id not in local_names:
                    local_names.append(name_node.id)
    arguments = function.args
    parameters = [a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)]
    ordered = local_names + [p for p in parameters if p not in local_names and p not in ("self", "cls")]
    return ordered


def _walk_own_body(function: ast.AST) -> Iterator[ast.AST]:
    """Walk a function's body without descending into nested functions, classes or lambdas."""
    stack = list(ast.iter_child_nodes(function))
    ordered: list[ast.AST] = []
    while stack:
        node = stack.pop(0)
        ordered.append(node)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        stack.extend(ast.iter_child_nodes(node))
    ordered.sort(key=lambda n: (getattr(n, "lineno", 0), getattr(n, "col_offset", 0)))
    return iter(ordered)


def _line_starts(data: bytes) -> list[int]:
    starts = [0]
    for index, byte in enumerate(data):
        if byte == 0x0A:
            starts.append(index + 1)
    return starts
