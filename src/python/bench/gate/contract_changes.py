"""Shapes of a change that rewrites a contract the base documented or tested, read from the text alone:

- **a swapped exception** — a function of the source stops raising an exception type or starts raising
  another, while the same diff rewrites what its docstring says of exceptions (or a documentation file that
  names the function and the type): the project changes what it documents, it does not repair it
  (``ValueError`` for a too large *r* dropped, ``IndexError`` instead, the docstring rewritten to say so);
- **an inverted test** — a test function present on both sides whose assertion turns into its opposite
  (``assert x`` / ``assert not x``, ``==`` / ``!=``, ``is`` / ``is not``, ``in`` / ``not in``,
  ``assertTrue`` / ``assertFalse`` …) or whose expected exception becomes another type: the project's own test
  asserted the behaviour the change removes.

A repair may do either when the base's docs or test asserted the bug itself; :mod:`bench.gate.judge_history`
finds those (a regression the same release brought in with its test) and the judgement exempts them.
"""

from __future__ import annotations

import ast
import copy
import re

from bench.gate.change_shapes import parse_or_none

_RAISES_CALLS = frozenset({"raises", "assertRaises", "assertRaisesRegex", "assertRaisesRegexp", "assertWarns",
                           "assertWarnsRegex"})
_OPPOSITE_CALLS = {"assertTrue": "assertFalse", "assertEqual": "assertNotEqual", "assertEquals": "assertNotEquals",
                   "assertIs": "assertIsNot", "assertIn": "assertNotIn", "assertIsNone": "assertIsNotNone",
                   "assertIsInstance": "assertNotIsInstance", "assertAlmostEqual": "assertNotAlmostEqual",
                   "assertRegex": "assertNotRegex"}
_OPPOSITE_CALLS.update({v: k for k, v in list(_OPPOSITE_CALLS.items())})
_EXCEPTION_WORDS = re.compile(r"\b\w*(Error|Exception|Warning)\b|\braise[sd]?\b", re.IGNORECASE)
_OPPOSITE_OPS = {ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Is: ast.IsNot, ast.IsNot: ast.Is, ast.In: ast.NotIn,
                 ast.NotIn: ast.In}


def _functions(pairs) -> dict[str, ast.AST]:
    found: dict = {}

    def visit(body, prefix: str) -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found.setdefault(prefix + node.name, node)
                visit(node.body, f"{prefix}{node.name}.")
            elif isinstance(node, ast.ClassDef):
                visit(node.body, f"{prefix}{node.name}.")

    for _, text in pairs:
        tree = parse_or_none(text)
        if tree is not None:
            visit(tree.body, "")
    return found


def _raised(function: ast.AST) -> set[str]:
    """Exception type names the function's own body raises (``raise X`` / ``raise X(...)``)."""
    names = set()
    for node in ast.walk(function):
        if isinstance(node, ast.Raise) and node.exc is not None:
            target = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
            if isinstance(target, ast.Name) and target.id[:1].isupper():
                names.add(target.id)
            elif isinstance(target, ast.Attribute) and target.attr[:1].isupper():
                names.add(target.attr)
    return names


def _raising_lines(docstring: str | None) -> set[str]:
    """The docstring's lines that speak of exceptions, whitespace-normalised."""
    return {" ".join(line.split()) for line in (docstring or "").splitlines() if _EXCEPTION_WORDS.search(line)}


def swapped_exceptions(before, after, docs_after: tuple[tuple[str, str], ...] = ()) -> tuple[str, ...]:
    """``function:-Old+New`` for each function that stops raising an exception type or starts raising another,
    while the same diff rewrites what its docstring says of exceptions (or a changed documentation file, given
    as (path, text after), names the type it stops or starts raising)."""
    old, new = _functions(before), _functions(after)
    found = []
    for name, function in sorted(new.items()):
        previous = old.get(name)
        if previous is None:
            continue
        gone, came = _raised(previous) - _raised(function), _raised(function) - _raised(previous)
        if not gone and not came:
            continue
        redocumented = _raising_lines(ast.get_docstring(previous)) != _raising_lines(ast.get_docstring(function)) \
            or any(re.search(rf"\b{re.escape(name.rsplit('.', 1)[-1])}\b", text) and
                   any(exception in text for exception in gone | came) for _, text in docs_after)
        if redocumented:
            found.append(f"{name}:" + "".join([f"-{e}" for e in sorted(gone)] + [f"+{e}" for e in sorted(came)]))
    return tuple(found)


class _Polarity(ast.NodeTransformer):
    """Every assertion in its positive form; ``flips`` lists, in order, whether each one was negative."""

    def __init__(self) -> None:
        self.flips: list[bool] = []

    def visit_Assert(self, node: ast.Assert) -> ast.Assert:
        self.generic_visit(node)
        test, negative = node.test, False
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            test, negative = test.operand, True
        elif isinstance(test, ast.Compare) and len(test.ops) == 1 and type(test.ops[0]) in _OPPOSITE_OPS \
                and type(test.ops[0]) in (ast.NotEq, ast.IsNot, ast.NotIn):
            test, negative = ast.Compare(test.left, [_OPPOSITE_OPS[type(test.ops[0])]()], test.comparators), True
        self.flips.append(negative)
        return ast.Assert(test=test, msg=None)

    def visit_Call(self, node: ast.Call) -> ast.Call:
        self.generic_visit(node)
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in _OPPOSITE_CALLS:
            negative = func.attr.startswith(("assertNot", "assertFalse", "assertIsNot"))
            self.flips.append(negative)
            positive = _OPPOSITE_CALLS[func.attr] if negative else func.attr
            return ast.Call(ast.Attribute(func.value, positive, func.ctx), node.args, node.keywords)
        return node


def _expected_exceptions(tree: ast.AST) -> list[str]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and node.args and (
                isinstance(node.func, ast.Attribute) and node.func.attr in _RAISES_CALLS
                or isinstance(node.func, ast.Name) and node.func.id in _RAISES_CALLS):
            found.append(ast.unparse(node.args[0]))
    return found


def _positive(tree: ast.AST) -> tuple[str, list[bool]]:
    polarity = _Polarity()
    shape = polarity.visit(copy.deepcopy(tree))
    return ast.dump(shape), polarity.flips


def is_inverted(old_body: str, new_body: str) -> bool:
    """The same test, one of whose assertions now says the opposite, or whose expected exception changed type."""
    old, new = parse_or_none(old_body), parse_or_none(new_body)
    if old is None or new is None or old_body == new_body:
        return False
    old_raises, new_raises = _expected_exceptions(old), _expected_exceptions(new)
    if old_raises and len(old_raises) == len(new_raises) and set(old_raises) - set(new_raises):
        return True  # pytest.raises(ValueError) -> pytest.raises(IndexError)
    (old_shape, old_flips), (new_shape, new_flips) = _positive(old), _positive(new)
    return old_shape == new_shape and old_flips != new_flips


def inverted_tests(old_bodies: dict[str, str], new_bodies: dict[str, str]) -> tuple[str, ...]:
    """The test ids present on both sides whose test function the change inverts."""
    return tuple(sorted(test_id for test_id, body in new_bodies.items()
                        if test_id in old_bodies and is_inverted(old_bodies[test_id], body)))


def all_test_ids(pairs: tuple[tuple[str, str], ...]) -> tuple[str, ...]:
    """``path::name`` / ``path::Class::name`` of every test function of the test files."""
    ids = []
    for path, text in pairs:
        tree = parse_or_none(text)
        for node in tree.body if tree is not None else ():
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test"):
                ids.append(f"{path}::{node.name}")
            elif isinstance(node, ast.ClassDef):
                ids += [f"{path}::{node.name}::{m.name}" for m in node.body
                        if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef)) and m.name.startswith("test")]
    return tuple(ids)
