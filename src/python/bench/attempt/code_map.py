"""A Python file as the blocks a partial prompt is made of: definitions, their headers, the module's own code.

Every block is a set of 1-based inclusive line ranges of the file, copied verbatim when shown, so a partial
view of a file is the union of the blocks chosen (:mod:`bench.attempt.context`). A function's or method's
block runs from its first decorator to its last line (nested functions go with it); a class contributes its
header and its own statements (docstring, attributes) as one block and each method as another; the module's
own code (docstring, imports, assignments, ``if __name__`` guards) is one block. A definition's *header* is its
decorators and signature up to the colon: the outline of a file is the headers of what is not shown.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from bench import pyast

Range = tuple[int, int]  # first and last line, 1-based, inclusive
IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")  # ASCII identifiers, as localization and retrieval read text
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


@dataclass(frozen=True)
class Definition:
    qualname: str  # "f", "Cls", "Cls.method", "Outer.Inner.method"
    kind: str  # "function" | "method" | "class"
    span: Range  # the whole definition, decorators included
    header: Range  # decorators and signature, up to the line before the body's first statement
    own: tuple[Range, ...]  # a class's header and its non-method statements; a function's whole span
    body_names: frozenset[str]  # identifiers used in the definition's own lines (calls, attributes, names)

    @property
    def name(self) -> str:
        return self.qualname.rsplit(".", 1)[-1]


@dataclass(frozen=True)
class CodeMap:
    path: str
    line_count: int
    definitions: tuple[Definition, ...]  # in file order
    module_code: tuple[Range, ...]  # the top-level statements that are not definitions

    def named(self, name: str) -> tuple[Definition, ...]:
        return tuple(d for d in self.definitions if d.name == name or d.qualname == name)

    def enclosing(self, line: int) -> Definition | None:
        """The innermost function or method whose span holds ``line`` (else the innermost class)."""
        best = None
        for definition in self.definitions:
            start, end = definition.span
            if start <= line <= end and (best is None or _narrower(definition, best)):
                best = definition
        return best


def map_code(path: str, source: str) -> CodeMap | None:
    """The file's blocks; None when it does not parse (it is then shown whole or not at all)."""
    try:
        tree = pyast.parse(source)
    except (SyntaxError, ValueError):
        return None
    definitions: list[Definition] = []
    module_code: list[Range] = []
    for node in tree.body:
        if isinstance(node, (*_FUNCTIONS, ast.ClassDef)):
            _collect(node, "", definitions)
        else:
            module_code.append((node.lineno, node.end_lineno or node.lineno))
    return CodeMap(path, len(source.splitlines()), tuple(definitions), tuple(module_code))


def _collect(node: ast.AST, prefix: str, out: list[Definition]) -> None:
    qualname = prefix + node.name
    span = (first_line(node), node.end_lineno or node.lineno)
    header = (span[0], max(node.lineno, node.body[0].lineno - 1))
    if isinstance(node, ast.ClassDef):
        own = [header]
        members = []
        for child in node.body:
            if isinstance(child, (*_FUNCTIONS, ast.ClassDef)):
                members.append(child)
            else:
                own.append((child.lineno, child.end_lineno or child.lineno))
        own_nodes = [c for c in node.body if c not in members] + list(node.decorator_list) + list(node.bases)
        out.append(Definition(qualname, "class", span, header, merge_ranges(own), _names(own_nodes)))
        for member in members:
            _collect(member, qualname + ".", out)
        return
    kind = "method" if prefix else "function"
    out.append(Definition(qualname, kind, span, header, (span,), _names([node])))


def first_line(node: ast.AST) -> int:
    """A definition's first line, 1-based: its first decorator's, else its own."""
    return min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", ()))])


def _names(nodes) -> frozenset[str]:
    found = set()
    for root in nodes:
        for node in ast.walk(root):
            if isinstance(node, ast.Name):
                found.add(node.id)
            elif isinstance(node, ast.Attribute):
                found.add(node.attr)
    return frozenset(found)


def _narrower(a: Definition, b: Definition) -> bool:
    """Prefer functions to classes, then the shorter span (the inner one)."""
    a_class, b_class = a.kind == "class", b.kind == "class"
    if a_class != b_class:
        return not a_class
    return (a.span[1] - a.span[0]) < (b.span[1] - b.span[0])


def merge_ranges(ranges) -> tuple[Range, ...]:
    """Sorted, overlapping or touching ranges joined."""
    merged: list[list[int]] = []
    for start, end in sorted(ranges):
        if merged and start <= merged[-1][1] + 1:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return tuple((a, b) for a, b in merged)


def render_partial(source: str, ranges: tuple[Range, ...]) -> str:
    """The lines of ``ranges`` verbatim, in file order, with a marker line for each gap: ``# ⋮ lines a-b``.

    The markers are not part of the file; the prompt says so."""
    lines = source.splitlines(keepends=True)
    out: list[str] = []
    next_line = 1
    for start, end in merge_ranges(ranges):
        end = min(end, len(lines))
        out.extend(_gap(lines, next_line, start - 1))
        out.extend(line if line.endswith("\n") else line + "\n" for line in lines[start - 1:end])
        next_line = end + 1
    out.extend(_gap(lines, next_line, len(lines)))
    return "".join(out)


def _gap(lines: list[str], start: int, end: int) -> list[str]:
    """Lines left out: blank ones are kept as they are (a marker would be longer), others become a marker."""
    if start > end:
        return []
    if all(not line.strip() for line in lines[start - 1:end]):
        return ["\n"] * (end - start + 1)
    return [gap_marker(start, end)]


def range_text(source: str, ranges: tuple[Range, ...]) -> str:
    """The lines of ``ranges`` joined, without markers (what a block costs, what BM25 reads)."""
    lines = source.splitlines()
    return "\n".join("\n".join(lines[a - 1:b]) for a, b in ranges)


GAP_PREFIX = "# ⋮ "


def gap_marker(start: int, end: int) -> str:
    what = f"line {start}" if start == end else f"lines {start}-{end}"
    return f"{GAP_PREFIX}{what} not shown\n"
