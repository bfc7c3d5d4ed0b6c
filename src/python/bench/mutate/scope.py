"""Which functions of a module may receive a mutation, and which of their nodes are fair game.

A mutation belongs to the innermost function around it (qualified like ``__qualname__``:
``Cache.get``, ``outer.<locals>.inner``). Left alone: module and class bodies (import-time code), functions
whose body is only a docstring / ``pass`` / ``...``, ``@overload`` and abstract stubs, ``__repr__`` and
friends, everything under ``if TYPE_CHECKING:``, and inside functions the parts where a change is invisible or
trivially loud — annotations, f-strings (whose node positions are unreliable before Python 3.12), ``raise``
and ``assert`` statements, calls that only log, warn or print, and interpreter version checks.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_SKIPPED_FUNCTION_NAMES = frozenset({"__repr__", "__rich_repr__", "_repr_pretty_", "_repr_html_"})
_STUB_DECORATORS = frozenset({"overload", "abstractmethod", "abstractproperty", "abstractclassmethod"})
_LOG_METHODS = frozenset({"debug", "info", "warning", "warn", "error", "exception", "critical", "log"})
_LOG_OWNERS = frozenset({"log", "logger", "logging", "_log", "_logger", "warnings", "LOG", "LOGGER"})
_VERSION_NAMES = frozenset({"version_info", "hexversion", "PY2", "PY3", "PY37", "PY38", "PY39", "PY310", "PY311"})


@dataclass(frozen=True, eq=False)
class FunctionScope:
    """One mutable function: its qualified name, its node and the nodes that belong to it alone."""

    qualname: str
    node: ast.FunctionDef | ast.AsyncFunctionDef
    own_nodes: tuple[ast.AST, ...]  # in source order of discovery; nested defs and skipped parts excluded
    is_generator: bool


def _is_type_checking(test: ast.expr) -> bool:
    if isinstance(test, ast.Name):
        return test.id == "TYPE_CHECKING"
    return isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"


def _decorator_name(decorator: ast.expr) -> str:
    if isinstance(decorator, ast.Call):
        decorator = decorator.func
    if isinstance(decorator, ast.Attribute):
        return decorator.attr
    return decorator.id if isinstance(decorator, ast.Name) else ""


def _is_trivial_body(body: list[ast.stmt]) -> bool:
    def trivial(statement: ast.stmt) -> bool:
        if isinstance(statement, ast.Pass):
            return True
        return isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant)  # docstring, ...

    return all(trivial(statement) for statement in body)


def _is_skipped_function(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    if node.name in _SKIPPED_FUNCTION_NAMES or _is_trivial_body(node.body):
        return True
    return any(_decorator_name(decorator) in _STUB_DECORATORS for decorator in node.decorator_list)


def _is_log_call(node: ast.Call) -> bool:
    func = node.func
    if isinstance(func, ast.Name):
        return func.id in ("print", "warn")
    if not isinstance(func, ast.Attribute) or func.attr not in _LOG_METHODS:
        return False
    owner = func.value
    name = owner.attr if isinstance(owner, ast.Attribute) else getattr(owner, "id", "")
    return name in _LOG_OWNERS


def _children(node: ast.AST) -> list[ast.AST]:
    """The child nodes a mutation may reach; parts that are skipped as a whole are left out."""
    if isinstance(node, ast.AnnAssign):
        return [child for child in (node.target, node.value) if child is not None]
    if isinstance(node, ast.If) and _is_type_checking(node.test):
        return list(node.orelse)
    if isinstance(node, ast.Lambda):
        return [node.body]
    return list(ast.iter_child_nodes(node))


def _names_version(operand: ast.expr) -> bool:
    while isinstance(operand, ast.Subscript):
        operand = operand.value
    name = operand.attr if isinstance(operand, ast.Attribute) else getattr(operand, "id", "")
    return name in _VERSION_NAMES


def is_version_check(node: ast.AST) -> bool:
    """``sys.version_info >= (3, 10)``, ``sys.hexversion < 0x30A00A6``, ``PY3``: about the interpreter, not
    the library's logic (negating or shifting one only picks the other branch of a compatibility shim)."""
    if isinstance(node, ast.Compare):
        return any(_names_version(operand) for operand in (node.left, *node.comparators))
    if isinstance(node, ast.BoolOp):
        return all(is_version_check(value) for value in node.values)
    return isinstance(node, (ast.Name, ast.Attribute)) and _names_version(node)


def _is_skipped_subtree(node: ast.AST) -> bool:
    if isinstance(node, (ast.JoinedStr, ast.Raise, ast.Assert, ast.Global, ast.Nonlocal, ast.Delete)):
        return True
    if isinstance(node, (ast.Compare, ast.BoolOp)):
        return is_version_check(node)
    return isinstance(node, ast.Call) and _is_log_call(node)


def _own_nodes(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.AST]:
    nodes: list[ast.AST] = []
    stack: list[ast.AST] = list(reversed(function.body))
    while stack:
        node = stack.pop()
        if isinstance(node, ast.JoinedStr):
            nodes.append(node)  # an f-string may lose its `f` (an omission), but nothing inside it is touched
            continue
        if isinstance(node, (*_FUNCTIONS, ast.ClassDef)) or _is_skipped_subtree(node):
            continue  # a nested def is a scope of its own; skipped parts are skipped whole
        nodes.append(node)
        stack.extend(reversed(_children(node)))
    return nodes


def _is_generator(own_nodes: list[ast.AST]) -> bool:
    return any(isinstance(node, (ast.Yield, ast.YieldFrom)) for node in own_nodes)


def function_scopes(module: ast.Module) -> tuple[FunctionScope, ...]:
    """Every mutable function of ``module``, nested ones included, in source order."""
    scopes: list[FunctionScope] = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in _children(node):
            if isinstance(child, _FUNCTIONS):
                qualname = prefix + child.name
                if not _is_skipped_function(child):
                    own = _own_nodes(child)
                    scopes.append(FunctionScope(qualname, child, tuple(own), _is_generator(own)))
                visit(child, qualname + ".<locals>.")
            elif isinstance(child, ast.ClassDef):
                visit(child, prefix + child.name + ".")
            else:
                visit(child, prefix)

    visit(module, "")
    return tuple(scopes)
