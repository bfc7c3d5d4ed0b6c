"""Forms a mutant leaves standing alone: what readings S and T found after every earlier rule had passed the mutant.

Each is counted on the file before and after the mutation (:mod:`bench.mutate.anomalies` compares the counts):

* **a value that defaults to None, used unguarded** — ``elif value > ceil:`` in ``clamp(value, floor=None,
  ceil=None)``, where nothing in the function tests ``ceil`` for None any more (the twin ``floor`` branch above
  still writes ``floor is not None and value < floor``): an ordering or arithmetic on a parameter whose default
  cannot take part in it, or on the attribute the function copies it to as it is (``self.real_name =
  real_name`` then ``module + self.real_name``, where it was ``real_name or name``);
* **a guard its twin branch keeps** — an ``if``/``elif`` chain in which one test is ``x is not None and <a
  comparison>`` and another is the bare comparison;
* **a test of a chain negated once** — ``elif not isinstance(dest, Iterable):`` in a chain of four plain
  ``isinstance(dest, …)`` tests: the same predicate tested the other way in one branch of its chain;
* **a test of a chain compared the other way once** — ``elif align != "left":`` among ``align == "center"`` and
  ``align in [...]`` branches; ``elif "_" not in field:`` between ``"." in field`` and ``"-" in field``;
* **a clause that cancels itself** — ``next_ws = idx < last`` and then ``if (idx < last or replace_has_ws) and
  not (next_ws or has_ws):``;
* **a sentinel passed on where its test finds it** — ``if pad is not no_pad: return zip(*args)`` and ``else:
  return zip_longest(*args, fillvalue=pad)``;
* **an exit when the value is there, then reading it** — ``if self.possibilities: return self.message`` followed
  by ``sorted(self.possibilities)``.

Parentheses left holding one operand are read from the text (:mod:`bench.mutate.parentheses`).
"""

from __future__ import annotations

import ast

from bench.mutate.guards import blocks_of, iterates_or_indexes
from bench.mutate.habits import has_odd_one_out
from bench.mutate.kinds import defaults_of, functions, own_nodes
from bench.mutate.walks import walk

_ORDERINGS = (ast.Lt, ast.LtE, ast.Gt, ast.GtE)


def _is_name(node: ast.AST, names: set[str]) -> bool:
    return isinstance(node, ast.Name) and node.id in names


def _tested_or_stored(nodes: list, names: set[str]) -> set[str]:
    """The names among ``names`` that the nodes test (for None, for truth, by type) or assign."""
    found = set()
    for node in nodes:
        if isinstance(node, ast.Name) and node.id in names and isinstance(node.ctx, (ast.Store, ast.Del)):
            found.add(node.id)
        elif isinstance(node, ast.Compare):
            found |= {n.id for n in (node.left, *node.comparators) if _is_name(n, names)
                      and any(isinstance(op, (ast.Is, ast.IsNot, ast.Eq, ast.NotEq)) for op in node.ops)}
        elif isinstance(node, ast.BoolOp):
            found |= {n.id for n in node.values if _is_name(n, names)}
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not) and _is_name(node.operand, names):
            found.add(node.operand.id)
        elif isinstance(node, (ast.If, ast.While, ast.IfExp, ast.Assert)) and _is_name(node.test, names):
            found.add(node.test.id)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("isinstance", "type"):
            found |= {n.id for n in node.args[:1] if _is_name(n, names)}
    return found


def unguarded_optionals(tree: ast.AST) -> int:
    """Orderings and arithmetic on a parameter that defaults to None, in a function that never tests or assigns
    it: the default cannot take part in them."""
    count = 0
    for function in functions(tree):
        optional = {name for name, default in defaults_of(function).items()
                    if isinstance(default, ast.Constant) and default.value is None}
        if not optional:
            continue
        nodes = list(own_nodes(function))
        loose = optional - _tested_or_stored(nodes, optional)
        loose |= _copies(nodes, loose)
        for node in nodes:
            if isinstance(node, ast.Compare):
                operands = [node.left, *node.comparators]
                count += sum(1 for index, op in enumerate(node.ops) if isinstance(op, _ORDERINGS)
                             and (_key(operands[index]) in loose or _key(operands[index + 1]) in loose))
            elif isinstance(node, ast.BinOp) and not isinstance(node.op, ast.Mod):
                count += _key(node.left) in loose or _key(node.right) in loose
    return count


def _key(node: ast.AST) -> str:
    """``name`` of a name, ``self.name`` of an attribute of a name ("" otherwise)."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return f"{node.value.id}.{node.attr}"
    return ""


def _copies(nodes: list, loose: set[str]) -> set[str]:
    """Attributes the function sets to one of ``loose`` as it is (``self.real_name = real_name``) and sets only
    there."""
    stores = [(target, node.value) for node in nodes if isinstance(node, ast.Assign) for target in node.targets
              if isinstance(target, ast.Attribute)]
    copied = {_key(t) for t, value in stores if isinstance(value, ast.Name) and value.id in loose}
    return {key for key in copied if sum(_key(t) == key for t, _ in stores) == 1}


def chains(tree: ast.AST):
    """The tests of every ``if``/``elif`` chain, in order."""
    inner = set()
    for node in walk(tree):
        if isinstance(node, ast.If) and id(node) not in inner:
            tests, link = [], node
            while True:
                tests.append(link.test)
                if len(link.orelse) == 1 and isinstance(link.orelse[0], ast.If):
                    link = link.orelse[0]
                    inner.add(id(link))
                else:
                    break
            yield tests


def _guarded_comparison(test: ast.AST) -> ast.Compare | None:
    """The comparison of ``x is not None and <comparison reading x>``."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) and len(test.values) == 2:
        guard, compare = test.values
        if isinstance(guard, ast.Compare) and len(guard.ops) == 1 and isinstance(guard.ops[0], ast.IsNot) \
                and isinstance(compare, ast.Compare):
            subject = ast.dump(guard.left)
            if any(ast.dump(n) == subject for n in walk(compare)):
                return compare
    return None


def guards_the_twin_keeps(tree: ast.AST) -> int:
    """Bare comparisons in an ``if``/``elif`` chain whose other branches guard the same kind of comparison with
    ``x is not None and …``."""
    count = 0
    for tests in chains(tree):
        guarded = [c for c in map(_guarded_comparison, tests) if c is not None]
        if guarded:
            shapes = {tuple(type(op) in _ORDERINGS for op in c.ops) for c in guarded}
            count += sum(1 for t in tests if isinstance(t, ast.Compare)
                         and tuple(type(op) in _ORDERINGS for op in t.ops) in shapes)
    return count


_POSITIVE = (ast.Eq, ast.In, ast.Is)
_NEGATIVE = (ast.NotEq, ast.NotIn, ast.IsNot)


def _predicates(test: ast.AST) -> list[tuple[str, bool]]:
    """(the callee, tested plainly?) of ``f(…)`` / ``not f(…)``; (the subject, equal?) of ``x == v`` / ``x != v``
    (``is`` alike), and of both sides of ``x in xs`` / ``x not in xs`` (``"_" in field`` beside ``"." in
    field``)."""
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], _POSITIVE + _NEGATIVE):
        plain = isinstance(test.ops[0], _POSITIVE)
        found = [("compare:" + ast.dump(test.left), plain)]
        if isinstance(test.ops[0], (ast.In, ast.NotIn)):
            found.append(("container:" + ast.dump(test.comparators[0]), plain))
        return found
    plain = not (isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not))
    call = test if plain else test.operand
    if isinstance(call, ast.Call) and isinstance(call.func, (ast.Name, ast.Attribute)):
        return [(ast.dump(call.func), plain)]
    return []


def chain_polarity(tree: ast.AST) -> int:
    """Predicates an ``if``/``elif`` chain calls one way in every branch but one, and subjects it compares with
    ``==`` (``in``) in every branch but one."""
    groups: dict[tuple, list[bool]] = {}
    for number, tests in enumerate(chains(tree)):
        for found in (pair for test in tests for pair in _predicates(test)):
            groups.setdefault((number, found[0]), []).append(found[1])
    return sum(map(has_odd_one_out, groups.values()))  # one branch against at least two: a pair is no habit yet


def cancelling_clauses(tree: ast.AST) -> int:
    """``(idx < last or …) and not (next_ws or …)`` where the function's one assignment of ``next_ws`` is ``idx <
    last``: a test holding a clause and a name that holds that very clause, so one part settles the other."""
    count = 0
    for function in functions(tree):
        nodes = list(own_nodes(function))
        values: dict[str, list[str]] = {}
        for node in nodes:
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                values.setdefault(node.targets[0].id, []).append(
                    ast.dump(node.value) if isinstance(node.value, (ast.Compare, ast.BoolOp, ast.Call)) else "")
        for node in nodes:
            if isinstance(node, (ast.If, ast.While, ast.IfExp, ast.Assert)) and isinstance(node.test, ast.BoolOp):
                parts = list(walk(node.test))
                clauses = {ast.dump(part) for part in parts}
                names = {part.id for part in parts if isinstance(part, ast.Name)}
                count += sum(1 for name in names if len(held := values.get(name, [])) == 1 and held[0] in clauses)
    return count


def _sentinel_test(test: ast.AST) -> tuple[str, bool] | None:
    """(the subject, is it the sentinel in the body?) of ``x is S`` / ``x is not S`` for a named sentinel (not
    None, True or False)."""
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Is, ast.IsNot)) \
            and isinstance(test.left, ast.Name) and isinstance(test.comparators[0], ast.Name):
        return test.left.id, isinstance(test.ops[0], ast.Is)
    return None


def _passes_on(block: list, name: str) -> bool:
    """Whether the block hands ``name`` to a call as an argument."""
    return any(isinstance(node, ast.Call) and any(_is_name(a, {name}) for a in node.args)
               or isinstance(node, ast.keyword) and _is_name(node.value, {name})
               for statement in block for node in walk(statement))


def sentinels_passed_on(tree: ast.AST) -> int:
    """``if pad is not no_pad: … else: zip_longest(*args, fillvalue=pad)``: the branch in which the value is the
    marker for "not given" hands it on as if it were a value."""
    count = 0
    for node in walk(tree):
        if isinstance(node, ast.If) and (test := _sentinel_test(node.test)):
            count += _passes_on(node.body if test[1] else node.orelse, test[0])
    return count


_COLLECTION_READERS = frozenset({"sorted", "len", "list", "tuple", "set", "iter", "max", "min", "sum", "enumerate",
                                 "next", "reversed", "join"})


def _reads_as_collection(node: ast.AST, subject: str) -> bool:
    """``sorted(x)``, ``len(x)`` and the like, a loop over ``x`` or an element of it (``subject``: an
    ``ast.dump``)."""
    for inner in walk(node):
        if isinstance(inner, ast.Call):
            callee = inner.func.attr if isinstance(inner.func, ast.Attribute) else getattr(inner.func, "id", "")
            if callee in _COLLECTION_READERS and any(ast.dump(a) == subject for a in inner.args):
                return True
    return iterates_or_indexes(node, subject)


def exits_when_present_then_reads(tree: ast.AST) -> int:
    """``if self.possibilities: return self.message`` followed by ``sorted(self.possibilities)``: the function
    leaves when the value is there and then reads it as a collection, before anything assigns it."""
    count = 0
    for node in walk(tree):
        for block in blocks_of(node):
            for index, statement in enumerate(block[:-1]):
                if isinstance(statement, ast.If) and isinstance(statement.test, (ast.Name, ast.Attribute)) \
                        and not statement.orelse and isinstance(statement.body[-1], (ast.Return, ast.Raise)):
                    count += _read_before_assigned(block[index + 1:index + 4], statement.test)
    return count


def _read_before_assigned(block: list, subject: ast.AST) -> bool:
    written, read = ast.unparse(subject), ast.dump(subject)  # a store differs from the read only in its context
    for statement in block:
        if any(ast.unparse(n) == written for n in walk(statement) if isinstance(getattr(n, "ctx", None), ast.Store)):
            return False
        if _reads_as_collection(statement, read):
            return True
    return False
