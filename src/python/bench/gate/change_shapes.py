"""Shapes of a change that mark a new capability or a deliberate change rather than a repair.

Each reads only the text of the task's source and test files on both sides of the change (see
:class:`bench.gate.judgement.FixChange`); nothing runs. They feed :func:`bench.gate.judgement.judge`:

- **a new return value** — a function that returned nothing on every path now returns something, and its old
  docstring promised no result (``TTLCache.expire()`` now returning the expired pairs): tests that use the value
  test a capability the base never offered. A function whose old docstring says it returns something and that
  forgot to is a bug, so it does not count;
- **a new method** — a public method name no class had before, even where a module-level function of that name
  existed (``VersionInfo.parse`` beside ``parse``);
- **a new parameter** — an existing public function gains a parameter (``encoding=``): tests that pass it need
  what the base did not have;
- **a changed expectation** — a test that existed before the change, whose text the change touches only in its
  literals (expected strings and numbers; the decorators' parameters count): the project's own test asserted
  the old behaviour, and the change turns it into another (an output format, a message). A repair usually adds
  a test or a case; rewriting what an existing test expects is the shape of a deliberate change.
"""

from __future__ import annotations

import ast

from bench import pyast

_NO_VALUE = (None, Ellipsis)


def parse_or_none(text: str) -> ast.Module | None:
    """The module, or None for text that does not parse (a file of another Python, or no file)."""
    try:
        return pyast.parse(text)
    except (SyntaxError, ValueError):
        return None


def _functions(pairs: tuple[tuple[str, str], ...]) -> dict[str, ast.FunctionDef | ast.AsyncFunctionDef]:
    """Qualified name (``Class.method``, ``function``) -> its node, over every file of ``pairs``."""
    found: dict = {}

    def visit(body, prefix: str) -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found.setdefault(prefix + node.name, node)
            elif isinstance(node, ast.ClassDef):
                visit(node.body, f"{prefix}{node.name}.")

    for _, text in pairs:
        tree = parse_or_none(text)
        if tree is not None:
            visit(tree.body, "")
    return found


def _own_nodes(function: ast.AST):
    """The nodes of a function's body, not of the functions and classes nested in it."""
    stack = list(ast.iter_child_nodes(function))
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            stack.extend(ast.iter_child_nodes(node))


def returns_value(function: ast.AST) -> bool:
    return any(isinstance(node, ast.Return) and node.value is not None
               and not (isinstance(node.value, ast.Constant) and node.value.value in _NO_VALUE)
               for node in _own_nodes(function))


def _is_generator(function: ast.AST) -> bool:
    return any(isinstance(node, (ast.Yield, ast.YieldFrom)) for node in _own_nodes(function))


def newly_valued(before: tuple[tuple[str, str], ...], after: tuple[tuple[str, str], ...]) -> set[str]:
    """Names of functions that existed before and returned no value, whose docstring did not mention a return,
    and that return one after the change."""
    old, new = _functions(before), _functions(after)
    found = set()
    for name, function in new.items():
        previous = old.get(name)
        if previous is None or _is_generator(previous) or returns_value(previous) or not returns_value(function):
            continue
        if "return" in (ast.get_docstring(previous) or "").lower():
            continue  # it promised a result and did not give it: a bug
        found.add(name.rsplit(".", 1)[-1])
    return found


def _method_names(pairs: tuple[tuple[str, str], ...]) -> set[str]:
    return {name.rsplit(".", 1)[-1] for name in _functions(pairs) if "." in name}


def new_methods(before: tuple[tuple[str, str], ...], after: tuple[tuple[str, str], ...]) -> set[str]:
    """Public method names that no class of the source files had before (``VersionInfo.parse`` when only a
    module-level ``parse`` existed). A subclass overriding a method some class already had does not count."""
    return {name for name in _method_names(after) - _method_names(before) if not name.startswith("_")}


def _parameters(function: ast.AST) -> set[str]:
    arguments = function.args
    every = arguments.posonlyargs + arguments.args + arguments.kwonlyargs
    return {a.arg for a in every} | {a.arg for a in (arguments.vararg, arguments.kwarg) if a is not None}


def added_parameters(before: tuple[tuple[str, str], ...], after: tuple[tuple[str, str], ...]) -> set[str]:
    """Parameters (by name) that existing public functions and methods gain with the change."""
    old, new = _functions(before), _functions(after)
    found = set()
    for name, function in new.items():
        if name.rsplit(".", 1)[-1].startswith("_") and not name.endswith("__init__"):
            continue
        if name in old:
            found |= {p for p in _parameters(function) - _parameters(old[name]) if not p.startswith("_") and len(p) > 2}
    return found


class _Blank(ast.NodeTransformer):
    """Every literal the same: what is left is a test's structure."""

    def visit_Constant(self, node: ast.Constant) -> ast.Constant:
        return ast.copy_location(ast.Constant(value="…"), node)

    def visit_JoinedStr(self, node: ast.JoinedStr) -> ast.Constant:
        return ast.copy_location(ast.Constant(value="…"), node)


def literals_only_changed(old_body: str, new_body: str) -> bool:
    """Two texts of one test that differ, and differ only in their literals."""
    if old_body == new_body:
        return False
    old, new = parse_or_none(old_body), parse_or_none(new_body)
    if old is None or new is None:
        return False
    return ast.dump(_Blank().visit(old)) == ast.dump(_Blank().visit(new))


def changed_expectations(old_bodies: dict[str, str], new_bodies: dict[str, str]) -> tuple[str, ...]:
    """The test ids present on both sides whose test function the change edits in its literals alone."""
    return tuple(sorted(test_id for test_id, body in new_bodies.items()
                        if test_id in old_bodies and literals_only_changed(old_bodies[test_id], body)))


_EXPECTED_NAMES = ("expect", "want", "result", "output", "correct")


class _Collapse(_Blank):
    """Every literal the same, and every display of literal data in an assertion or an expected value one
    placeholder, whatever its number of entries: what is left is a test's structure without its expectations."""

    def visit_Assert(self, node: ast.Assert) -> ast.Assert:
        return ast.copy_location(ast.Assert(test=self._expected(node.test), msg=None), node)

    def visit_Assign(self, node: ast.Assign) -> ast.Assign:
        named = [t.id.lower() for t in node.targets if isinstance(t, ast.Name)]
        if any(word in name for name in named for word in _EXPECTED_NAMES):
            node.value = self._expected(node.value)
        return self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> ast.Call:
        if isinstance(node.func, ast.Attribute) and node.func.attr.startswith("assert"):
            node.args = [self._expected(arg) for arg in node.args]
        return self.generic_visit(node)

    def _expected(self, node: ast.AST) -> ast.AST:
        for child in ast.walk(node):
            for field, value in ast.iter_fields(child):
                if isinstance(value, ast.AST) and _is_data(value):
                    setattr(child, field, ast.Constant(value="[…]"))
                elif isinstance(value, list):
                    setattr(child, field, [ast.Constant(value="[…]") if isinstance(v, ast.AST) and _is_data(v) else v
                                           for v in value])
        return ast.Constant(value="[…]") if _is_data(node) else self.visit(node)


def _is_data(node: ast.AST) -> bool:
    """A list, tuple, set or dict display all of whose entries are literals, names or displays of them."""
    if not isinstance(node, (ast.List, ast.Tuple, ast.Set, ast.Dict)):
        return False
    entries = [*node.keys, *node.values] if isinstance(node, ast.Dict) else node.elts
    return all(e is None or isinstance(e, (ast.Constant, ast.Name, ast.Attribute, ast.UnaryOp)) or _is_data(e)
               for e in entries)


def entries_changed(old_body: str, new_body: str) -> bool:
    """Two texts of one test that differ only in their expected values, where an expected list, tuple, set or
    dict gains or loses entries (an existing test's expected output grown by what the change adds). New cases
    in a decorator's parameter list are not expectations: they stay part of the structure."""
    if old_body == new_body or literals_only_changed(old_body, new_body):
        return False
    old, new = parse_or_none(old_body), parse_or_none(new_body)
    if old is None or new is None:
        return False
    return ast.dump(_Collapse().visit(old)) == ast.dump(_Collapse().visit(new))


def grown_expectations(old_bodies: dict[str, str], new_bodies: dict[str, str]) -> tuple[str, ...]:
    """The test ids present on both sides whose expected structures the change grows or shrinks."""
    return tuple(sorted(test_id for test_id, body in new_bodies.items()
                        if test_id in old_bodies and entries_changed(old_bodies[test_id], body)))
