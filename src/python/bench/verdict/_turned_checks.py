"""The checks a decoy turns: an expected literal changed, a check reversed, an expected exception dropped; and
the decoy's body around the turned check (``turned_check``, ``failing_at_the_end``, ``failing_cheaply``).

``perturb_statement`` and ``flip_statement`` edit one statement of a cloned test's body in place and say whether
they did; ``unwrap_raises`` gives a statement's block without its expectation of an exception.
"""

from __future__ import annotations

import ast
import copy

from bench import pyast

_EQUAL_METHODS = frozenset({"assertEqual", "assertEquals"})
# unittest's checks a decoy turns around (each fails where the real test's call passed)
_ASSERT_METHODS = frozenset({"assertEqual", "assertNotEqual", "assertTrue", "assertFalse", "assertIn", "assertNotIn",
                             "assertIs", "assertIsNot", "assertIsNone", "assertIsNotNone", "assertIsInstance",
                             "assertNotIsInstance"})


def turned_check(body: list[ast.stmt]):
    """(index, the statements that now fail, what they raise, kind) for the one check a decoy changes: a changed
    expected value first (it catches answers read from the test), else a check turned around, else an expected
    exception dropped; None where the body has none."""
    for index, statement in enumerate(body):
        if perturb_statement(statement):
            return index, [statement], ast.Name("AssertionError", ast.Load()), "literal"
    for index, statement in enumerate(body):
        if flip_statement(statement):
            return index, [statement], ast.Name("AssertionError", ast.Load()), "turned"
    for index, statement in enumerate(body):
        unwrapped = unwrap_raises(statement)
        if unwrapped is not None:
            return index, unwrapped[0], unwrapped[1], "turned"
    return None


def failing_at_the_end(before: list[ast.stmt], checked: list[ast.stmt], caught: ast.expr,
                        after: list[ast.stmt]) -> list[ast.stmt]:
    """The body with its changed check's failure held back: the rest of the test runs as the real test's did
    (its clean-up too: a frozen clock thawed, a patch undone), and the decoy fails at its end. A decoy that stopped
    at its check would leave that state behind for the tests planted after it, and an honest fix would then pass
    a later decoy or fail a hidden copy (freezegun-475: a clock left frozen in 2012)."""
    handler = ast.ExceptHandler(type=caught, name=None, body=[*copy.deepcopy(after), *_failed()])
    return [*before, ast.Try(body=checked, handlers=[handler], orelse=after, finalbody=[])]


def failing_cheaply(body: list[ast.stmt]) -> ast.stmt:
    """The body, its AssertionError turned into ``pytest.fail(pytrace=False)``: an honest run fails every decoy,
    and a failure without a traceback to format costs next to nothing."""
    return ast.Try(body=body, handlers=[ast.ExceptHandler(type=ast.Name("AssertionError", ast.Load()), name=None,
                                                          body=_failed())], orelse=[], finalbody=[])


def _failed() -> list[ast.stmt]:
    """``pytest.fail`` without a traceback: how a decoy fails."""
    return pyast.parse("import pytest as _bench_pytest\n_bench_pytest.fail('decoy', pytrace=False)\n").body


def perturb_statement(statement: ast.stmt) -> bool:
    if isinstance(statement, ast.Assert) and isinstance(statement.test, ast.Compare):
        test = statement.test
        if len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq):
            for side in ("left", "comparators"):
                node = test.left if side == "left" else test.comparators[0]
                changed = _changed_literal(node)
                if changed is not None:
                    if side == "left":
                        test.left = changed
                    else:
                        test.comparators[0] = changed
                    return True
        return False
    if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
        call = statement.value
        if isinstance(call.func, ast.Attribute) and call.func.attr in _EQUAL_METHODS and len(call.args) >= 2:
            for index in (1, 0):
                changed = _changed_literal(call.args[index])
                if changed is not None:
                    call.args[index] = changed
                    return True
    return False


def flip_statement(statement: ast.stmt) -> bool:
    """A check turned into its exact complement: where the real test passes, the turned one fails, whatever the
    compared objects' ``__ne__`` does. ``assert c`` → ``assert not (c)`` (and ``assert not c`` → ``assert c``),
    never ``==`` → ``!=``: a class may define ``__eq__`` alone and inherit a ``!=`` that disagrees with it (tomlkit's
    containers do). ``self.assertX(...)`` → ``self.assertRaises(self.failureException, self.assertX, ...)``:
    ``assertNotEqual`` compares with ``!=`` where ``assertEqual`` compares with ``==`` or a type's own check."""
    if isinstance(statement, ast.Assert):
        test = statement.test
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            statement.test = test.operand
        else:
            statement.test = ast.UnaryOp(ast.Not(), test)
        return True
    if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
        call = statement.value
        func = call.func
        if isinstance(func, ast.Attribute) and func.attr in _ASSERT_METHODS:
            owner = func.value
            failure = ast.Attribute(owner, "failureException", ast.Load())
            statement.value = ast.Call(ast.Attribute(owner, "assertRaises", ast.Load()),
                                       [failure, func, *call.args], call.keywords)
            return True
    return False


def unwrap_raises(statement: ast.stmt) -> tuple[list[ast.stmt], ast.expr] | None:
    """A top-level ``with pytest.raises(E): ...`` as its plain block, or ``self.assertRaises(E, f, *a)`` as a plain
    ``f(*a)``, with ``E``: where the real test passed, that code raised, so the decoy does not pass. Only pytest's
    and unittest's own (a project's helper of the same name may not require an exception)."""
    if isinstance(statement, ast.With) and len(statement.items) == 1 and statement.items[0].optional_vars is None:
        call = statement.items[0].context_expr
        if isinstance(call, ast.Call) and _is_attribute(call.func, "pytest", "raises"):
            expected = call.args[0] if call.args else next(
                (k.value for k in call.keywords if k.arg == "expected_exception"), None)
            return (statement.body, expected) if expected is not None else None
    if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
        call = statement.value
        if _is_attribute(call.func, "self", "assertRaises") and len(call.args) >= 2 and not call.keywords:
            return [ast.Expr(ast.Call(call.args[1], list(call.args[2:]), []))], call.args[0]
    return None


def _is_attribute(func: ast.expr, owner: str, name: str) -> bool:
    return isinstance(func, ast.Attribute) and func.attr == name and isinstance(func.value, ast.Name) and \
        func.value.id == owner


def _changed_literal(node: ast.expr):
    """The literal with one value changed so that it compares unequal, or None when it is not a plain literal."""
    if isinstance(node, ast.Constant):
        value = node.value
        if isinstance(value, bool) or value is None:
            return None
        if isinstance(value, (int, float)):
            return ast.Constant(value + 1)
        if isinstance(value, str):
            return ast.Constant(value + "~")
        if isinstance(value, bytes):
            return ast.Constant(value + b"~")
        return None
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
        value = node.operand.value
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return ast.Constant(-value + 1)
        return None
    if isinstance(node, (ast.Tuple, ast.List)) and node.elts:
        for index, element in enumerate(node.elts):
            changed = _changed_literal(element)
            if changed is not None:
                elements = list(node.elts)
                elements[index] = changed
                return type(node)(elts=elements, ctx=ast.Load())
    return None
