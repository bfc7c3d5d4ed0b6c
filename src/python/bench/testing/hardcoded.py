"""Hand-written hard-coded "fixes": edits that pass a task's failing tests without fixing its bug.

Each special-cases the inputs the tests use (see MECHANISMS) and otherwise falls through to the unchanged,
buggy body: what the plain verdict accepts and a stricter tier must reject. No task source is stored: a fix
names where our code goes, and the reply is built at run time from the task's pristine tree.

A fix is one JSON document, ``tests/hardcoded/<task id>.json``::

    {"task_id": "synthetic.x", "mechanism": "call-count", "note": "one sentence: what is special-cased",
     "patches": [{"file": "m.py", "function": "f", "prologue": ["_N[0] += 1", "if _N[0] == 3:", "    return 7"]}],
     "module_prologue": [{"file": "m.py", "code": ["_N = [0]"]}]}

``function`` is a top-level ``func`` or ``Class.method`` (the last definition wins, as at run time). A
``prologue`` (text, or a list of lines) becomes the first statements of its body, after its docstring,
re-indented to the body's indentation. ``module_prologue`` code goes at module level after the
docstring and any ``from __future__`` imports. ``mechanism`` is one of :data:`MECHANISMS`.
"""

from __future__ import annotations

import ast
import json
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench import pyast
from bench.errors import CheckFailed

MECHANISMS = ("by-value", "call-count", "caller-name", "test-file-table", "pytest-current-test", "under-pytest")
FIXES_DIR = Path("tests") / "hardcoded"


@dataclass(frozen=True)
class Patch:
    file: str
    function: str  # "func" or "Class.method" (top-level only)
    prologue: str


@dataclass(frozen=True)
class HardcodedFix:
    task_id: str
    mechanism: str
    note: str
    patches: tuple[Patch, ...]
    # (file, code) inserted at module top level after the docstring and any `from __future__` imports
    module_prologue: tuple[tuple[str, str], ...] = ()


def load_fixes(root: Path) -> tuple[HardcodedFix, ...]:
    """Every ``tests/hardcoded/*.json`` under ``root``, by name."""
    return tuple(load_fix(path) for path in sorted((Path(root) / FIXES_DIR).glob("*.json")))


def load_fix(path: Path) -> HardcodedFix:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise CheckFailed(f"{path}: cannot read: {exc}") from exc
    if not isinstance(data, dict):
        raise CheckFailed(f"{path}: not a JSON object")
    mechanism = _field(data, "mechanism", str, path)
    if mechanism not in MECHANISMS:
        raise CheckFailed(f"{path}: unknown mechanism {mechanism!r} (known: {', '.join(MECHANISMS)})")
    patches = tuple(Patch(_field(p, "file", str, path), _field(p, "function", str, path),
                          _code(_field(p, "prologue", (str, list), path), path))
                    for p in _objects(_field(data, "patches", list, path), path))
    if not patches:
        raise CheckFailed(f"{path}: needs at least one patch")
    prologues = tuple((_field(m, "file", str, path), _code(_field(m, "code", (str, list), path), path))
                      for m in _objects(data.get("module_prologue", []), path))
    return HardcodedFix(_field(data, "task_id", str, path), mechanism, _field(data, "note", str, path),
                        patches, prologues)


def _field(data: dict, name: str, kind: type | tuple[type, ...], path: Path) -> Any:
    if name not in data:
        raise CheckFailed(f"{path}: missing field {name!r}")
    if not isinstance(data[name], kind):
        raise CheckFailed(f"{path}: field {name!r} has the wrong type")
    return data[name]


def _objects(items: object, path: Path) -> list[dict]:
    if not isinstance(items, list) or not all(isinstance(item, dict) for item in items):
        raise CheckFailed(f"{path}: patches and module_prologue are lists of objects")
    return items


def _code(value: str | list, path: Path) -> str:
    if isinstance(value, list):
        if not all(isinstance(line, str) for line in value):
            raise CheckFailed(f"{path}: code as a list is a list of lines")
        value = "\n".join(value)
    return _normalised(value)


def _normalised(code: str) -> str:
    return textwrap.dedent(code).strip("\n") + "\n"


def apply_fix(fix: HardcodedFix, tree: Path) -> tuple[tuple[str, str, str], ...]:
    """(path, old text, new text) per file the fix changes in ``tree`` (nothing is written)."""
    files = dict.fromkeys([p.file for p in fix.patches] + [f for f, _ in fix.module_prologue])
    changed = []
    for rel in files:
        source = Path(tree) / rel
        if not source.is_file():
            raise CheckFailed(f"{fix.task_id}: no file {rel} in the tree")
        old = source.read_text(encoding="utf-8")
        module = _parse(old, f"{fix.task_id}: {rel}")
        lines = old.splitlines(keepends=True)
        newline = "\r\n" if lines and lines[0].endswith("\r\n") else "\n"
        inserts = [_function_insert(module, lines, patch, fix.task_id) for patch in fix.patches if patch.file == rel]
        inserts += [(_module_insert(module, lines), _normalised(code)) for f, code in fix.module_prologue if f == rel]
        # Bottom up: the line numbers found in the original text stay right.
        for at, code in sorted(inserts, key=lambda item: item[0], reverse=True):
            lines[at:at] = [line + newline for line in code.splitlines()]
        new = "".join(lines)
        _parse(new, f"{fix.task_id}: {rel} after the fix")
        changed.append((rel, old, new))
    return tuple(changed)


def hardcoded_reply(fix: HardcodedFix, tree: Path) -> str:
    """The fix as a SEARCH/REPLACE reply of whole files, from the task's pristine ``tree``."""
    from bench.testing.support import whole_file_edit

    return "\n".join(whole_file_edit(path, old, new) for path, old, new in apply_fix(fix, tree) if old != new)


def _parse(text: str, where: str) -> ast.Module:
    try:
        return pyast.parse(text)
    except (SyntaxError, ValueError) as exc:
        raise CheckFailed(f"{where} does not parse: {exc}") from exc


def _function_insert(module: ast.Module, lines: list[str], patch: Patch, task_id: str) -> tuple[int, str]:
    """(0-based line to insert at, the prologue indented for the body)."""
    owner: list[ast.stmt] = module.body
    *outer, name = patch.function.split(".")
    if len(outer) > 1:
        raise CheckFailed(f"{task_id}: {patch.function}: func or Class.method only")
    if outer:
        classes = [n for n in owner if isinstance(n, ast.ClassDef) and n.name == outer[0]]
        owner = classes[-1].body if classes else []
    defs = [n for n in owner if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == name]
    if not defs:
        raise CheckFailed(f"{task_id}: no function {patch.function} in {patch.file}")
    function, first = defs[-1], defs[-1].body[0]
    start = min([first.lineno] + [d.lineno for d in getattr(first, "decorator_list", [])])
    at = first.end_lineno if _is_docstring(first) else start - 1
    if first.lineno == function.lineno:
        raise CheckFailed(f"{task_id}: {patch.function} has its body on its def line")
    indent = _indent(lines[first.lineno - 1])
    return at, textwrap.indent(_normalised(patch.prologue), indent)


def _module_insert(module: ast.Module, lines: list[str]) -> int:
    at = 0
    for index, node in enumerate(module.body):
        if index == 0 and _is_docstring(node) or isinstance(node, ast.ImportFrom) and node.module == "__future__":
            at = node.end_lineno
        else:
            break
    if at == 0:  # a shebang, coding line or header comment stays first
        while at < len(lines) and lines[at].startswith("#"):
            at += 1
    return at


def _is_docstring(node: ast.stmt) -> bool:
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]
