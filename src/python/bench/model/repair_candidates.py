"""The repairer's candidates: every distinct single-site mutant of a program, as byte-span replacements.

A policy over the operator library (:mod:`bench.operators`): where the mutation-task engine injects a bug,
these candidates try to undo one, so each operator table is taken with its inverses (see the package's table
of families). Each :class:`Mutation` replaces one contiguous byte span of the original file with new text, so
formatting, comments and every other byte stay as they were. Line numbers never shift: no operator inserts or
removes a newline.

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

Operator tokens are found by the library's looser search (:func:`bench.operators.tokens.searched_span`), and
each site is spelled one way: recorded attempts name candidates by :attr:`Mutation.key`, so the candidates
stay exactly what they were. Mutants that reproduce the original text or an earlier mutant's text are
dropped. The operators keep the syntax valid by construction; :func:`parses` checks a mutant when it is about
to be used, because parsing every mutant of a large module up front costs seconds.
"""

from __future__ import annotations

import ast
import functools
import hashlib
from dataclasses import dataclass
from typing import Iterator

from bench import pyast
from bench.operators import sites as families
from bench.operators.rewrites import (
    constant_sites,
    decimal_literal,
    drop_not_sites,
    negation_sites,
    off_by_one_sites,
    parenthesised_operand,
    return_name_sites,
    returns_nothing,
    swap_argument_sites,
)
from bench.operators.sites import Edit, Site, arithmetic_sites, comparison_sites, keyword_spans, replace_spans
from bench.operators.tables import (
    ARITHMETIC_SWAPS,
    BOOLEAN_SWAPS,
    CLASSIC_ARITHMETIC,
    COMPARISON_SWAPS,
    with_inverses,
)
from bench.operators.tokens import TOKENS, searched_span
from bench.operators.view import SourceView

# library family -> the operator name candidates carry (part of Mutation.key)
_NAMES = {
    families.COMPARISON: "cmp",
    families.ARITHMETIC: "arith",
    families.CONSTANT: "const",
    families.BOUND: "bound",
    families.NEGATE: "negate",
    families.BOOLEAN: "boolop",
    families.DROP_NOT: "drop-not",
    families.RETURN_NAME: "return",
    families.SWAP_ARGUMENTS: "swap-args",
}
CANDIDATE_COMPARISONS = with_inverses(COMPARISON_SWAPS)
# Every arithmetic change the engine injects, the way back from each, and the classic `*` <-> `//`.
CANDIDATE_ARITHMETIC = with_inverses(ARITHMETIC_SWAPS, CLASSIC_ARITHMETIC)
_SIMPLE_EXPRESSIONS = (ast.Name, ast.Attribute, ast.Call, ast.Subscript, ast.Constant)
_MAX_RETURN_NAMES = 4
_search_keyword = functools.partial(searched_span, before_comment=False)


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
        tree = pyast.parse(source)
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
        pyast.parse(text)
    except SyntaxError:
        return False
    return True


class _Finder(ast.NodeVisitor):
    """Collects every candidate of a module, each named with its innermost enclosing function."""

    def __init__(self, path: str, source: str) -> None:
        self.path = path
        self.view = SourceView.of(source.encode("utf-8"))
        self.found: list[Mutation] = []
        self.functions: list[ast.FunctionDef | ast.AsyncFunctionDef] = []

    def _add(self, operator: str, edit: Edit) -> None:
        start, end, replacement = edit
        original = self.view.text(start, end)
        if original == replacement:
            return
        function = self.functions[-1].name if self.functions else ""
        lineno = self.view.lineno(start)
        self.found.append(Mutation(self.path, operator, start, end, original, replacement, lineno, function))

    def _add_sites(self, sites: Iterator[Site]) -> None:
        for site in sites:
            self._add(_NAMES[site.operator], site.edits[0])

    # --- scopes ----------------------------------------------------------------------------------------
    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self.functions.append(node)
        self.generic_visit(node)
        self.functions.pop()

    visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]

    # --- operators -------------------------------------------------------------------------------------
    def visit_Compare(self, node: ast.Compare) -> None:
        self._add_sites(comparison_sites(node, self.view, CANDIDATE_COMPARISONS, searched_span))
        self.generic_visit(node)

    def visit_BinOp(self, node: ast.BinOp) -> None:
        self._add_sites(arithmetic_sites(node, self.view, CANDIDATE_ARITHMETIC, searched_span))
        self.generic_visit(node)

    visit_AugAssign = visit_BinOp  # type: ignore[assignment]

    def visit_Constant(self, node: ast.Constant) -> None:
        self._add_sites(constant_sites(node, self.view, decimal_literal))

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
        self._add_sites(swap_argument_sites(node, self.view))
        self.generic_visit(node)

    def _off_by_one(self, expression: ast.expr | None) -> None:
        # Integer constants are already covered by the ``const`` operator.
        if expression is None or isinstance(expression, (ast.Constant, ast.Starred)):
            return
        for site in off_by_one_sites(expression, self.view):
            if "\n" in self.view.text(site.start, site.end):
                return
            # one spelling: parentheses around anything but a simple expression
            self._add(_NAMES[site.operator], site.edits[0 if isinstance(expression, _SIMPLE_EXPRESSIONS) else 1])

    def visit_If(self, node: ast.If) -> None:
        test = node.test
        if not (isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not)):  # ``drop-not`` covers it
            for site in negation_sites(test, self.view):
                self._add(_NAMES[site.operator], site.edits[-1])  # always ``not (c)``
        self.generic_visit(node)

    visit_While = visit_If  # type: ignore[assignment]
    visit_IfExp = visit_If  # type: ignore[assignment]

    def visit_BoolOp(self, node: ast.BoolOp) -> None:
        # Over the values' span, every keyword found (comments included in the search) swapped at once.
        spans = [span for span in keyword_spans(node, self.view, _search_keyword) if span is not None]
        start, end = self.view.start(node.values[0]), self.view.end(node.values[-1])
        swapped = replace_spans(self.view, start, end, spans, TOKENS[BOOLEAN_SWAPS[type(node.op)]].text)
        self._add(_NAMES[families.BOOLEAN], (start, end, swapped))
        self.generic_visit(node)

    def visit_UnaryOp(self, node: ast.UnaryOp) -> None:
        if isinstance(node.op, ast.Not):
            self._add_sites(drop_not_sites(node, self.view, parenthesised_operand))
        self.generic_visit(node)

    def visit_Return(self, node: ast.Return) -> None:
        if self.functions and returns_nothing(node):
            names = _names_of(self.functions[-1])[:_MAX_RETURN_NAMES]
            self._add_sites(return_name_sites(node, self.view, names))
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
