"""Which functions a task's probes call: the ones its reference change touches.

A PR task's targets are the functions and methods whose lines the fix commit changed in its source files; a
mutation task's, the mutated function; a synthetic task's, the functions where the reference and the initial
code differ plus every public function and method of its source files (its tests call them by name).

A target is a function the recorder can wrap and the replay can find by name: a module-level function, or a
method (plain, static, class or property getter) of a class defined at module level or nested in one. A change
inside a nested function probes the function that holds it; a change outside any function (a module constant,
a compiled pattern, a class attribute) probes the functions of its file that read a name the changed lines
assign.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

from bench import pyast


@dataclass(frozen=True)
class Target:
    file: str  # work-dir relative path of the module
    qualname: str  # "function", "Class.method", "Outer.Inner.method"


def definitions(text: str) -> list[tuple[str, int, int]]:
    """(qualname, first line, last line) of every wrappable function of a module, decorators included."""
    try:
        tree = pyast.parse(text)
    except SyntaxError:
        return []
    found: list[tuple[str, int, int]] = []

    def visit(body, prefix: str) -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not isinstance(node, ast.AsyncFunctionDef):
                first = min([node.lineno] + [d.lineno for d in node.decorator_list])
                found.append((prefix + node.name, first, node.end_lineno or node.lineno))
            elif isinstance(node, ast.ClassDef):
                visit(node.body, f"{prefix}{node.name}.")

    visit(tree.body, "")
    return found


def enclosing(text: str, lines: set[int]) -> list[str]:
    """Qualnames of the wrappable functions that hold any of ``lines``, in file order."""
    return [name for name, first, last in definitions(text) if any(first <= line <= last for line in lines)]


def readers(text: str, lines: set[int]) -> list[str]:
    """Qualnames of the wrappable functions that read a name assigned, outside any function, on ``lines``."""
    try:
        tree = pyast.parse(text)
    except SyntaxError:
        return []
    inside = [(first, last) for _, first, last in definitions(text)]
    assigned: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and any(
                node.lineno <= line <= (node.end_lineno or node.lineno) for line in lines) and not any(
                first <= node.lineno <= last for first, last in inside):
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                assigned.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
    if not assigned:
        return []
    found = []
    for name, first, last in definitions(text):
        used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and first <= n.lineno <= last}
        used |= {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute) and first <= n.lineno <= last}
        if used & assigned:
            found.append(name)
    return found


def public(text: str) -> list[str]:
    """Every function and method no part of whose name starts with an underscore (dunder methods aside)."""
    return [name for name, _, _ in definitions(text)
            if not any(part.startswith("_") for part in name.split("."))]


def targets_of(spec, fixed: Path, base: Path, *, public_api: bool) -> tuple[Target, ...]:
    """The task's targets in the reference tree ``fixed`` (``base`` is the code before the change)."""
    from bench.gate.adequacy import regions

    chosen: dict[tuple[str, str], None] = {}
    for path, lines in sorted(regions(spec, fixed, base).items()):
        text = (fixed / path).read_text(encoding="utf-8", errors="replace")
        for name in enclosing(text, lines) or readers(text, lines):
            chosen[(path, name)] = None
    if public_api:
        for path in spec.source_files:
            if path.endswith(".py") and (fixed / path).is_file():
                for name in public((fixed / path).read_text(encoding="utf-8", errors="replace")):
                    chosen[(path, name)] = None
    return tuple(Target(path, name) for path, name in chosen)
