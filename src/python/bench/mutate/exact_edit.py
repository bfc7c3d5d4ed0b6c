"""Loading a module for mutation, and checking that an edit is exactly the intended AST change.

A mutant is kept only if it parses and its AST equals the original's with the one intended node swapped in.
The check works on the top-level statement that holds the site: that statement must dump exactly as the
original one with the new node in place and keep its place in the file (same start, same end shifted by the
edit's length change). Bytes outside it are the original bytes and the tokenizer is in the same state at both
of its boundaries, so every other statement parses as before; comparing them too would only cost time.
"""

from __future__ import annotations

import ast
import copy
import logging
from dataclasses import dataclass
from pathlib import Path

from bench import pyast
from bench.operators.sites import Edit, Site
from bench.operators.view import SourceView

_log = logging.getLogger(__name__)


@dataclass(frozen=True, eq=False)
class ParsedModule:
    """One library file: its bytes, its AST and each node's parent (to swap a node in and out)."""

    path: str  # tree-relative POSIX path
    view: SourceView
    tree: ast.Module
    parents: dict[int, tuple[ast.AST, str, int | None]]  # id(child) -> (parent, field, list index)


def _parents(tree: ast.AST) -> dict[int, tuple[ast.AST, str, int | None]]:
    parents: dict[int, tuple[ast.AST, str, int | None]] = {}
    for parent in ast.walk(tree):
        for field, value in ast.iter_fields(parent):
            if isinstance(value, ast.AST):
                parents[id(value)] = (parent, field, None)
            elif isinstance(value, list):
                for index, item in enumerate(value):
                    if isinstance(item, ast.AST):
                        parents[id(item)] = (parent, field, index)
    return parents


def load_module(root: Path, path: str) -> ParsedModule | None:
    """The parsed file, or None (logged) when it is not plain UTF-8 Python this interpreter can parse."""
    data = (root / path).read_bytes()
    if data.startswith(b"\xef\xbb\xbf") or b"\r" in data.replace(b"\r\n", b""):
        _log.info("skipping %s: byte-order mark or lone carriage returns", path)
        return None
    try:
        data.decode("utf-8")
        tree = pyast.parse(data, filename=path)
    except (SyntaxError, ValueError, UnicodeDecodeError) as exc:
        _log.info("skipping %s: %s", path, exc)  # e.g. syntax newer than this interpreter's
        return None
    return ParsedModule(path, SourceView.of(data), tree, _parents(tree))


def _top_level_index(module: ParsedModule, node: ast.AST) -> int:
    while True:
        parent, _, index = module.parents[id(node)]
        if parent is module.tree:
            assert index is not None  # a module's children are its body statements
            return index
        node = parent


def _expected_dump(module: ParsedModule, site: Site, statement: int) -> str:
    """The dump of top-level ``statement`` with the intended node swapped in (the tree is restored after)."""
    parent, field, index = module.parents[id(site.target)]
    replacement = site.build(copy.deepcopy(site.target))
    holder = getattr(parent, field)
    try:
        if index is None:
            setattr(parent, field, replacement)
        else:
            holder[index] = replacement
        return ast.dump(module.tree.body[statement])
    finally:
        if index is None:
            setattr(parent, field, holder)
        else:
            holder[index] = site.target


def _first_line(statement: ast.stmt) -> int:
    # A decorated def or class starts at its first decorator, not at the `def` / `class` keyword.
    return min([statement.lineno, *(decorator.lineno for decorator in getattr(statement, "decorator_list", ()))])


def _statement_span(view: SourceView, module: ast.Module, index: int) -> tuple[int, int]:
    statement = module.body[index]
    first = _first_line(statement)
    start = view.start(statement) if first == statement.lineno else view.line_starts[first - 1]
    return start, view.end(statement)


def _stands_alone(module: ast.Module, index: int) -> bool:
    """Whether top-level statement ``index`` owns its lines (no ``a = 1; b = 2`` sharing)."""
    body = module.body
    statement = body[index]
    if statement.col_offset != 0:
        return False
    if index > 0 and body[index - 1].end_lineno >= _first_line(statement):
        return False
    return index + 1 == len(body) or _first_line(body[index + 1]) > statement.end_lineno


def _parses_to(mutated: bytes, span: tuple[int, int], statement: int, alone: bool) -> ast.AST | None:
    """The mutant's statement at ``statement``, provided it still spans exactly ``span`` of ``mutated``.

    A statement that owns its lines is parsed on its own (see the module docstring; this keeps big modules
    fast); otherwise the whole mutant is parsed.
    """
    start, end = span
    try:
        if alone:
            parsed = pyast.parse(mutated[start:end])
            if len(parsed.body) != 1:
                return None
            found_span = _statement_span(SourceView.of(mutated[start:end]), parsed, 0)
            found_span = (start + found_span[0], start + found_span[1])
            found = parsed.body[0]
        else:
            parsed = pyast.parse(mutated)
            found = parsed.body[statement]
            found_span = _statement_span(SourceView.of(mutated), parsed, statement)
    except (SyntaxError, ValueError, IndexError):
        return None
    return found if found_span == span else None


def verified_edit(module: ParsedModule, site: Site) -> Edit | None:
    """The first spelling of ``site`` whose mutant parses to exactly the intended change, if any."""
    data = module.view.data
    statement = _top_level_index(module, site.target)
    expected = _expected_dump(module, site, statement)
    original_start, original_end = _statement_span(module.view, module.tree, statement)
    alone = _stands_alone(module.tree, statement)
    for start, end, text in site.edits:
        replacement = text.encode("utf-8")
        mutated = data[:start] + replacement + data[end:]
        span = (original_start, original_end + len(replacement) - (end - start))
        found = _parses_to(mutated, span, statement, alone)
        if found is not None and ast.dump(found) == expected:
            return start, end, text
    return None


