"""Which proposed mutants a reader would spot without running anything: the engine does not inject those.

The operators (``operators.py``) say where a change *can* go; a near miss of a fix (``near_misses``) may be any
of them. A bug planted for a task must also read like one a person wrote. Read by hand, mutants gave
themselves away in a few recurring ways, each refused here with its reason:

* ``not (...)`` wrapped around a condition: written that way on purpose, by no one;
* a wrong variable that leaves the name it replaced unread in the function (a loop variable or a parameter
  suddenly unused: what a linter flags first);
* the step of an increment changed (``n + 1`` → ``n + 2``, ``n - 1``, ``n + 0``): an off-by-one is a bound
  or an index, not a count of two or a bump that goes down;
* the condition of an error guard turned around (``if x is None: raise …`` → ``is not None``): the message
  says what the condition should have been;
* one test of an ``if``/``elif`` dispatch chain over the same value flipped (``elif kind == B`` → ``!=``): the
  lone ``!=`` among ``==`` stands out.
"""

from __future__ import annotations

import ast

from bench.mutate.exact_edit import ParsedModule
from bench.mutate.operators import (
    ARITHMETIC,
    BOOLEAN_SWAP,
    COMPARISON,
    CONSTANT_OFF_BY_ONE,
    NEGATE_CONDITION,
    WRONG_VARIABLE,
)
from bench.operators.sites import Site

_CONDITION_OPERATORS = (COMPARISON, NEGATE_CONDITION, BOOLEAN_SWAP)


def planted_on_sight(module: ParsedModule, function: ast.AST, own: tuple[ast.AST, ...], site: Site,
                     text: str) -> str:
    """Why the mutant would read as planted ("" when it would not): ``text`` is the spelling the engine chose."""
    if site.operator == NEGATE_CONDITION and text.startswith("not ("):
        return "not (...) wrapper"
    if site.operator == WRONG_VARIABLE and _reads_of(site.target.id, own) == 1:
        return f"leaves {site.target.id} unread"
    if site.operator == CONSTANT_OFF_BY_ONE and _is_increment_step(module, site.target):
        return "the step of an increment"
    if site.operator == ARITHMETIC and _steps_by_one(site.target):
        return "the direction of an increment"
    if site.operator in _CONDITION_OPERATORS and _guards_a_raise(module, site.target):
        return "the condition of an error guard"
    if site.operator == COMPARISON and _in_dispatch_chain(module, site.target):
        return "one test of a dispatch chain"
    return ""


def _reads_of(name: str, own: tuple[ast.AST, ...]) -> int:
    return sum(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load) for n in own)


def _parent(module: ParsedModule, node: ast.AST) -> tuple[ast.AST | None, str]:
    found = module.parents.get(id(node))
    return (found[0], found[1]) if found else (None, "")


def _is_increment_step(module: ParsedModule, node: ast.AST) -> bool:
    """``1`` as what ``+``/``-`` adds to or takes from a value (``n + 1``, ``i -= 1``)."""
    if not (isinstance(node, ast.Constant) and node.value == 1):
        return False
    parent, field = _parent(module, node)
    if isinstance(parent, ast.BinOp) and isinstance(parent.op, (ast.Add, ast.Sub)):
        return field == "right" or isinstance(parent.op, ast.Add)
    return isinstance(parent, ast.AugAssign) and isinstance(parent.op, (ast.Add, ast.Sub)) and field == "value"


def _steps_by_one(node: ast.AST) -> bool:
    """``x + 1`` / ``x - 1`` / ``i += 1`` (the operand a literal 1)."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
        return any(isinstance(side, ast.Constant) and side.value == 1 for side in (node.left, node.right))
    return isinstance(node, ast.AugAssign) and isinstance(node.op, (ast.Add, ast.Sub)) and \
        isinstance(node.value, ast.Constant) and node.value.value == 1


def _enclosing_test(module: ParsedModule, node: ast.AST) -> ast.If | None:
    """The ``if`` statement whose test holds ``node``, if any."""
    while node is not None:
        parent, field = _parent(module, node)
        if isinstance(parent, ast.If) and field == "test":
            return parent
        if parent is None or isinstance(parent, ast.stmt):
            return None
        node = parent
    return None


def _guards_a_raise(module: ParsedModule, node: ast.AST) -> bool:
    statement = _enclosing_test(module, node)
    return statement is not None and len(statement.body) == 1 and isinstance(statement.body[0], ast.Raise)


def _in_dispatch_chain(module: ParsedModule, node: ast.AST) -> bool:
    """``node`` is the whole test of an ``if``/``elif`` in a chain where at least two other tests compare the
    same value with ``==``."""
    statement = _enclosing_test(module, node)
    if statement is None or statement.test is not node or not _equality_subject(node):
        return False
    chain = [statement]
    parent, field = _parent(module, statement)
    while isinstance(parent, ast.If) and field == "orelse" and parent.orelse == [chain[0]]:
        chain.insert(0, parent)
        parent, field = _parent(module, parent)
    while len(chain[-1].orelse) == 1 and isinstance(chain[-1].orelse[0], ast.If):
        chain.append(chain[-1].orelse[0])
    subject = _equality_subject(node)
    return sum(_equality_subject(other.test) == subject for other in chain if other is not statement) >= 2


def _equality_subject(test: ast.AST) -> str:
    """The left side of a single ``==`` / ``!=`` comparison, dumped; "" for any other test."""
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Eq, ast.NotEq)):
        return ast.dump(test.left)
    return ""
