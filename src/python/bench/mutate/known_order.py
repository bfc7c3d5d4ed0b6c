"""Swapped arguments every Python reader knows the order of.

``isinstance(type, name)``, ``super(self, Cls)``, ``filter(items, key)``, ``re.match(text, PATTERN)``,
``date.__new__(cls, year, day, month)``, ``cache.setdefault(v, k)``: read by hand, a mutant that exchanges the
arguments of a builtin, of the standard library or of a builtin type's method marks its own line — nobody has to
look the callee up. Neither does one that exchanges a pair whose order is a convention (``major, minor``,
``key, value``, ``args, kwargs``, ``self`` first), or that passes two of its own function's parameters on in the reverse of their
order there (``def _new(self, result, original): return String(t, original, result)``). A swap in a call of the library's own function stays: seeing it means reading
the callee's signature elsewhere, which is the task.
"""

from __future__ import annotations

import ast
import builtins
import sys

from bench.mutate.walks import walk

_BUILTIN_NAMES = frozenset(dir(builtins))
_BUILTIN_METHODS = frozenset(name for kind in (dict, list, str, bytes, set, tuple, type, object, int, float)
                             for name in dir(kind))
_STDLIB = frozenset(sys.stdlib_module_names)
ORDERED_PAIRS = frozenset({
    ("major", "minor"), ("minor", "patch"), ("year", "month"), ("month", "day"), ("hour", "minute"),
    ("minute", "second"), ("key", "value"), ("k", "v"), ("args", "kwargs"), ("start", "stop"), ("start", "end"),
    ("begin", "end"), ("min", "max"), ("lo", "hi"), ("low", "high"), ("lower", "upper"), ("width", "height"),
    ("x", "y"), ("row", "col"), ("first", "second"), ("left", "right"), ("old", "new"), ("src", "dst"),
    ("name", "value"), ("a", "b"), ("head", "tail"), ("prefix", "suffix"), ("before", "after"),
})


def swapped_known_order(before: ast.AST, after: ast.AST) -> bool:
    """Whether the mutation exchanges two arguments of a call whose order the reader knows without looking."""
    calls = {_where(node): node for node in walk(before) if isinstance(node, ast.Call)}
    stdlib_names = _stdlib_names(before)
    for node in walk(after):
        if not isinstance(node, ast.Call):
            continue
        original = calls.get(_where(node))
        pair = _exchanged(original, node) if original is not None else None
        if pair is None:
            continue
        first, second = (_leaf(part) for part in pair)
        if _foreign(node.func, stdlib_names) or (first, second) in ORDERED_PAIRS or first in ("self", "cls"):
            return True
    return False


def _where(node: ast.Call) -> tuple:
    return node.lineno, node.col_offset, ast.dump(node.func)


def _exchanged(original: ast.Call, mutant: ast.Call) -> tuple[ast.AST, ast.AST] | None:
    """The two arguments (in the original's order) a mutant's call exchanged, if that is all it changed."""
    if len(original.args) != len(mutant.args) or ast.dump(original) == ast.dump(mutant):
        return None
    old, new = [ast.dump(a) for a in original.args], [ast.dump(a) for a in mutant.args]
    moved = [i for i, (a, b) in enumerate(zip(old, new)) if a != b]
    if len(moved) == 2 and old[moved[0]] == new[moved[1]] and old[moved[1]] == new[moved[0]] \
            and [ast.dump(k) for k in original.keywords] == [ast.dump(k) for k in mutant.keywords]:
        return original.args[moved[0]], original.args[moved[1]]
    return None


def _leaf(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def _stdlib_names(tree: ast.AST) -> set[str]:
    """Names the file binds to the standard library: ``import re``, ``from datetime import date``."""
    names = set()
    for node in walk(tree):
        if isinstance(node, ast.Import):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names if a.name.split(".")[0] in _STDLIB}
        elif isinstance(node, ast.ImportFrom) and not node.level and (node.module or "").split(".")[0] in _STDLIB:
            names |= {a.asname or a.name for a in node.names}
    return names


def _foreign(func: ast.AST, stdlib_names: set[str]) -> bool:
    """A builtin, a standard-library name, or a builtin type's method."""
    if isinstance(func, ast.Name):
        return func.id in _BUILTIN_NAMES or func.id in stdlib_names
    if isinstance(func, ast.Attribute):
        base = func.value
        while isinstance(base, ast.Attribute):
            base = base.value
        if isinstance(base, ast.Name) and (base.id in stdlib_names or base.id in _BUILTIN_NAMES):
            return True
        return func.attr in _BUILTIN_METHODS
    return False


def crossed_parameters(tree: ast.AST) -> int:
    """Calls that pass two parameters of the enclosing function, as plain names, in the reverse of the order the
    function takes them."""
    count = 0
    for function in walk(tree):
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        order = [a.arg for a in function.args.posonlyargs + function.args.args + function.args.kwonlyargs]
        nested = {id(n) for inner in walk(function) if inner is not function
                  and isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) for n in walk(inner)}
        for call in walk(function):
            if not isinstance(call, ast.Call) or id(call) in nested:
                continue
            passed = [a.id for a in call.args if isinstance(a, ast.Name) and a.id in order and a.id not in ("self", "cls")]
            count += any(order.index(first) > order.index(second) for first, second in zip(passed, passed[1:]))
    return count
