"""Slips a linter or a type checker reports, which a mutant of correct code makes in one edit.

Counted on the file before and after the mutation, like the rest (:mod:`bench.mutate.contradictions`):

* **a loop variable read after its loop** — ``for func in funcs: data = func(data)`` then ``return func``
  (pylint's undefined-loop-variable: unbound when the loop never ran, and the loop's result left unread);
* **a test its enclosing test settles** — inside ``if by_value is not False: … else:`` a test ``by_value is
  True``: the ``else`` runs only when it is False, so the inner test can never hold (identity tests against
  None, True and False, the subject not assigned in between);
* **a call asked for nothing** — ``stream.read(0)``, ``range(0)``, ``islice(xs, 0)``, ``text.split(sep, 0)``:
  a zero where the call reads, counts or splits, which the off-by-one of ``read(1)`` makes;
* **a value only ever read to compute itself** — ``last = f(last, x)`` in a loop that then yields ``f``: the
  value is carried along and never used;
* **an attribute read after the guard that left when it was there** — ``if hasattr(args, "func"): …;
  parser.exit()`` and then ``args.func(args)``;
* **a number put into text** — ``string.append(index)`` where ``index`` counts an ``enumerate`` or a ``range`` and
  the list is joined into a string;
* **NotImplemented for the very type a method handles** — ``if isinstance(other, bool): return NotImplemented``
  followed by code that uses ``other`` (the idiom tests ``not isinstance``);
* **a value passed through when its type test fails** — ``errors if not is_error(errors) else tuple(errors)``:
  the branch where the value failed its test returns it as it is, the branch where it passed converts it.
"""

from __future__ import annotations

import ast

from bench.mutate.guards import blocks_of, present_attribute
from bench.mutate.kinds import functions, own_nodes
from bench.mutate.walks import walk

_CONSTANTS = (None, True, False)
_NOTHING_METHODS = {"read": 0, "readline": 0, "recv": 0, "split": 1, "rsplit": 1}  # argument index
_NOTHING_FUNCTIONS = {"range": 0, "islice": 1, "repeat": 1}


def _targets(node: ast.AST) -> set[str]:
    return {n.id for n in walk(node) if isinstance(n, ast.Name)}


def loop_variables_read_after(tree: ast.AST) -> int:
    """Names a ``for`` binds that a later statement of the same block reads, where nothing else in the function
    assigns them."""
    count = 0
    for function in functions(tree):
        nodes = list(own_nodes(function))
        loops = [n for n in nodes if isinstance(n, (ast.For, ast.AsyncFor))]
        bound_by_loops = {id(t) for loop in loops for t in walk(loop.target)}
        assigned = {n.id for n in nodes if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
                    and id(n) not in bound_by_loops} | {a.arg for a in walk(function.args) if isinstance(a, ast.arg)}
        for node in [function, *nodes]:
            for block in blocks_of(node):
                for index, statement in enumerate(block):
                    if not isinstance(statement, (ast.For, ast.AsyncFor)):
                        continue
                    names = _targets(statement.target) - assigned
                    count += sum(1 for later in block[index + 1:] for n in walk(later)
                                 if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id in names)
    return count


def _identity(test: ast.AST) -> tuple[str, object, bool] | None:
    """(subject, constant, holds when identical?) of ``x is C`` / ``x is not C`` with C None, True or False."""
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Is, ast.IsNot)) \
            and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value in _CONSTANTS \
            and isinstance(test.left, (ast.Name, ast.Attribute)):
        return ast.dump(test.left), test.comparators[0].value, isinstance(test.ops[0], ast.Is)
    return None


def _settled(inner: tuple, subject: str, known, identical: bool) -> bool:
    """Whether an inner identity test's outcome follows from knowing subject is (or is not) ``known``."""
    other, constant, holds_if_same = inner
    if other != subject:
        return False
    if identical:
        return True  # x is known: any identity test of x is decided
    return constant is known  # x is not known: ``x is known`` cannot hold, ``x is not known`` always does


def settled_tests(tree: ast.AST) -> int:
    """Identity tests inside a branch of an identity test of the same subject that decides them."""
    count = 0
    for node in walk(tree):
        if not isinstance(node, ast.If) or (outer := _identity(node.test)) is None:
            continue
        subject, known, is_test = outer
        for branch, identical in ((node.body, is_test), (node.orelse, not is_test)):
            inner_nodes = [n for statement in branch for n in walk(statement)]
            if any(isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and ast.dump(ast.Name(n.id, ast.Load())) == subject
                   for n in inner_nodes):
                continue
            for inner in inner_nodes:
                test = inner.test if isinstance(inner, (ast.If, ast.IfExp, ast.While)) else None
                found = _identity(test) if test is not None else None
                count += found is not None and _settled(found, subject, known, identical)
    return count


def _zero(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value == 0 and type(node.value) is int


def calls_for_nothing(tree: ast.AST) -> int:
    """``x.read(0)``, ``range(0)``, ``islice(xs, 0)``, ``s.split(sep, 0)``: a literal zero where the call reads,
    counts or splits."""
    count = 0
    for node in walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in _NOTHING_METHODS:
            index = _NOTHING_METHODS[func.attr]
        elif isinstance(func, (ast.Name, ast.Attribute)) and (func.id if isinstance(func, ast.Name) else func.attr) \
                in _NOTHING_FUNCTIONS:
            index = _NOTHING_FUNCTIONS[func.id if isinstance(func, ast.Name) else func.attr]
        else:
            continue
        name = func.id if isinstance(func, ast.Name) else func.attr
        ranged = name in ("range", "islice") and len(node.args) > index + 1  # range(0, n), islice(xs, 0, n)
        count += len(node.args) > index and _zero(node.args[index]) and not ranged
    return count


def _type_test(test: ast.AST) -> tuple[str, bool] | None:
    """(subject, plain?) of ``isinstance(x, T)`` / ``is_t(x)`` / ``_is_t(x)``, or their ``not``."""
    plain = not (isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not))
    call = test if plain else test.operand
    if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.args \
            and (call.func.id == "isinstance" or call.func.id.lstrip("_").startswith("is")) \
            and isinstance(call.args[0], ast.Name):
        return call.args[0].id, plain
    return None


def _converts(node: ast.AST, name: str) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and len(node.args) == 1 \
        and isinstance(node.args[0], ast.Name) and node.args[0].id == name


def passed_through_on_failure(tree: ast.AST) -> int:
    """``x if not is_t(x) else T(x)`` / ``T(x) if is_t(x) else x``: the value returned as it is where its type
    test failed, converted where it passed."""
    count = 0
    for node in walk(tree):
        if not isinstance(node, ast.IfExp) or (found := _type_test(node.test)) is None:
            continue
        name, plain = found
        passed, failed = (node.body, node.orelse) if plain else (node.orelse, node.body)
        count += isinstance(failed, ast.Name) and failed.id == name and _converts(passed, name)
    return count


def self_fed_values(tree: ast.AST) -> int:
    """Names a function assigns whose every read is in the value of an assignment to the same name."""
    count = 0
    for function in functions(tree):
        own = list(own_nodes(function))
        declared = {name for n in own if isinstance(n, (ast.Global, ast.Nonlocal)) for name in n.names}
        feeding: dict[str, set[int]] = {}
        for node in own:
            if isinstance(node, (ast.Assign, ast.AugAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for name in (t.id for t in targets if isinstance(t, ast.Name)):
                    feeding.setdefault(name, set()).update(id(n) for n in walk(node.value))
        reads: dict[str, list[int]] = {}
        for node in walk(function):  # nested functions' reads count too: a closure uses the value
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                reads.setdefault(node.id, []).append(id(node))
        count += sum(1 for name, inside in feeding.items() if name not in declared and reads.get(name)
                     and all(r in inside for r in reads[name]))
    return count


def _exits(block: list) -> bool:
    last = block[-1] if block else None
    if isinstance(last, (ast.Return, ast.Raise)):
        return True
    call = last.value if isinstance(last, ast.Expr) else None
    return isinstance(call, ast.Call) and isinstance(call.func, (ast.Attribute, ast.Name)) \
        and (call.func.attr if isinstance(call.func, ast.Attribute) else call.func.id) in ("exit", "_exit", "abort")


def attribute_read_after_leaving_when_present(tree: ast.AST) -> int:
    """``if hasattr(v, "a"): …; exit()`` followed by code that reads ``v.a``."""
    count = 0
    for node in walk(tree):
        for block in blocks_of(node):
            for index, statement in enumerate(block):
                if isinstance(statement, ast.If) and (found := present_attribute(statement.test)) \
                        and _exits(statement.body):
                    subject, attribute = found
                    count += any(isinstance(n, ast.Attribute) and n.attr == attribute and ast.dump(n.value) == subject
                                 for later in block[index + 1:] for n in walk(later))
    return count


def _counters(function: ast.AST) -> set[str]:
    """Names bound as ``enumerate``'s count or a ``range``'s value."""
    found = set()
    for node in own_nodes(function):
        if isinstance(node, (ast.For, ast.comprehension)) and isinstance(node.iter, ast.Call) \
                and isinstance(node.iter.func, ast.Name):
            name = node.iter.func.id
            if name == "enumerate" and isinstance(node.target, ast.Tuple) and isinstance(node.target.elts[0], ast.Name):
                found.add(node.target.elts[0].id)
            elif name == "range" and isinstance(node.target, ast.Name):
                found.add(node.target.id)
    return found


def numbers_into_text(tree: ast.AST) -> int:
    """``parts.append(i)`` where ``i`` is a loop count and ``"".join(parts)`` in the same function."""
    count = 0
    for function in functions(tree):
        nodes = list(own_nodes(function))
        joined = {n.args[0].id for n in nodes if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                  and n.func.attr == "join" and isinstance(n.func.value, ast.Constant)
                  and isinstance(n.func.value.value, str) and n.args and isinstance(n.args[0], ast.Name)}
        counters = _counters(function)
        count += sum(1 for n in nodes if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                     and n.func.attr == "append" and isinstance(n.func.value, ast.Name) and n.func.value.id in joined
                     and len(n.args) == 1 and isinstance(n.args[0], ast.Name) and n.args[0].id in counters)
    return count


def not_implemented_for_own_type(tree: ast.AST) -> int:
    """``if isinstance(other, T): return NotImplemented`` followed by code that reads ``other``."""
    count = 0
    for node in walk(tree):
        for block in blocks_of(node):
            for index, statement in enumerate(block[:-1]):
                test = statement.test if isinstance(statement, ast.If) else None
                if isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "isinstance" \
                        and len(test.args) == 2 and isinstance(test.args[0], ast.Name) and len(statement.body) == 1 \
                        and isinstance(statement.body[0], ast.Return) \
                        and isinstance(statement.body[0].value, ast.Name) and statement.body[0].value.id == "NotImplemented":
                    subject = test.args[0].id
                    count += any(isinstance(n, ast.Name) and n.id == subject for later in block[index + 1:]
                                 for n in walk(later))
    return count
