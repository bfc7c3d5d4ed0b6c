"""Names a file binds and never reads: what a linter reports as unused, and what a reader of an omission sees.

Read by hand, mutants that leave something out gave themselves away this way: ``execdict = execdict or {}``
cut to ``execdict = {}`` throws the parameter away before it is read; a type dropped from an ``isinstance``
tuple leaves its import unused; an f-string without its ``f`` leaves the parameter it was to show unread.
:func:`unread_names` counts such names in a tree; a mutant that adds one adds a lint-level anomaly
(:func:`bench.mutate.anomalies.added_anomaly`).
"""

from __future__ import annotations

import ast

from bench.mutate.walks import walk

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_IGNORED = frozenset({"self", "cls", "mcs", "metacls"})


def unread_names(tree: ast.AST) -> int:
    """Imports the module never uses, locals a function assigns and never reads, and parameters a function
    never reads or overwrites before reading them."""
    count = _unused_imports(tree)
    for function in (node for node in walk(tree) if isinstance(node, _FUNCTIONS)):
        if _is_stub(function):
            continue
        reads = _reads(function)
        declared = {name for node in walk(function) if isinstance(node, (ast.Global, ast.Nonlocal))
                    for name in node.names}
        params = _parameters(function)
        stores = {node.id for node in walk(function) if isinstance(node, ast.Name)
                  and isinstance(node.ctx, ast.Store)}
        count += sum(1 for name in stores - params - declared - reads if not name.startswith("_"))
        count += sum(1 for name in params if name not in reads or _overwritten_first(function.body, name))
    return count


def _reads(node: ast.AST) -> set[str]:
    return {child.id for child in walk(node) if isinstance(child, ast.Name) and isinstance(child.ctx, ast.Load)}


def _parameters(function: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    arguments = function.args
    every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs, arguments.vararg, arguments.kwarg]
    return {arg.arg for arg in every if arg is not None and arg.arg not in _IGNORED and not arg.arg.startswith("_")}


def _is_stub(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    body = [statement for statement in function.body
            if not (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant))]
    return not body or all(isinstance(statement, (ast.Pass, ast.Raise)) for statement in body)


def _overwritten_first(body: list[ast.stmt], name: str) -> bool:
    """Whether the first of ``body``'s statements that mentions ``name`` assigns it without reading it."""
    for statement in body:
        mentions = [node for node in walk(statement) if isinstance(node, ast.Name) and node.id == name]
        if not mentions:
            continue
        if any(isinstance(node.ctx, ast.Load) for node in mentions):
            return False
        return isinstance(statement, (ast.Assign, ast.AnnAssign))
    return False


def _unused_imports(tree: ast.AST) -> int:
    if not isinstance(tree, ast.Module):
        return 0
    used = _reads(tree) | {node.value.id for node in walk(tree)
                           if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)}
    exported = {node.value for node in walk(tree) if isinstance(node, ast.Constant) and isinstance(node.value, str)}
    count = 0
    for statement in tree.body:
        if isinstance(statement, ast.ImportFrom) and statement.module == "__future__":
            continue
        if isinstance(statement, (ast.Import, ast.ImportFrom)):
            for alias in statement.names:
                bound = alias.asname or alias.name.split(".")[0]
                if bound != "*" and bound not in used and bound not in exported and not bound.startswith("_"):
                    count += 1
    return count
