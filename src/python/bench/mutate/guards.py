"""A test that contradicts its block: the mutant's condition admits exactly the values its block cannot use.

``if not items:`` whose block iterates, indexes or calls ``items``; ``if items: return …`` followed by code that
indexes ``items``; ``if key not in table:`` whose block reads ``table[key]`` (also ``key not in table and
table[key]``); ``if not hasattr(v, "unwrap"): v.unwrap()``; ``isinstance(x, type) or issubclass(x, Base)``;
``if endpos is not None: endpos = len(text)``; ``if not isinstance(other, timedelta): self.tdelta = other``;
``if field_cls is not None: … else: field_cls()``.
Counted before and after a mutation by
:mod:`bench.mutate.contradictions`.
"""

from __future__ import annotations

import ast

from bench.mutate.walks import walk


def blocks_of(node: ast.AST):
    """The statement lists a node holds: its body, else and finally blocks."""
    for field in ("body", "orelse", "finalbody"):
        block = getattr(node, field, None)
        if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
            yield block


def _overwrites_what_it_found(node: ast.If) -> bool:
    """``if endpos is not None: endpos = len(text)``: the value just found present is thrown away unread."""
    test = node.test
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.IsNot)
            and isinstance(test.left, ast.Name) and isinstance(test.comparators[0], ast.Constant)
            and test.comparators[0].value is None):
        return False
    first = node.body[0]
    return isinstance(first, ast.Assign) and any(isinstance(t, ast.Name) and t.id == test.left.id
                                                 for t in first.targets) \
        and not any(isinstance(n, ast.Name) and n.id == test.left.id for n in walk(first.value))


def _present_subject(test: ast.AST) -> str | None:
    """The subject of ``x is not None``: an ``else`` under it has x as None."""
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.IsNot) \
            and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value is None:
        return ast.dump(test.left)
    return None


def dereferences(node: ast.AST, subject: str) -> bool:
    """Whether ``node`` reads into the subject: ``subject.attr``, ``subject[k]``, ``subject(…)``."""
    for inner in walk(node):
        base = inner.value if isinstance(inner, (ast.Attribute, ast.Subscript)) else \
            inner.func if isinstance(inner, ast.Call) else None
        if base is not None and ast.dump(base) == subject:
            return True
    return False


def compares_as_data(node: ast.AST, subject: str) -> bool:
    """Whether ``node`` uses the subject as a value to look up or order: ``subject in xs``, ``subject < n``
    (neither means anything for None)."""
    return any(isinstance(inner, ast.Compare) and ast.dump(inner.left) == subject
               and isinstance(inner.ops[0], (ast.In, ast.NotIn, ast.Lt, ast.LtE, ast.Gt, ast.GtE))
               for inner in walk(node))


def present_attribute(test: ast.AST) -> tuple[str, str] | None:
    """(subject, attribute) of ``hasattr(subject, "attribute")``."""
    if isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "hasattr" \
            and len(test.args) == 2 and isinstance(test.args[1], ast.Constant):
        return ast.dump(test.args[0]), str(test.args[1].value)
    return None


def _absent_attribute(test: ast.AST) -> tuple[str, str] | None:
    """(subject, attribute) of ``not hasattr(subject, "attribute")``."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return present_attribute(test.operand)
    return None


def _reads_attribute(node: ast.AST, subject: str, attribute: str) -> bool:
    """``subject.attribute`` or ``getattr(subject, "attribute", …)``."""
    for inner in walk(node):
        if isinstance(inner, ast.Attribute) and inner.attr == attribute and ast.dump(inner.value) == subject:
            return True
        if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name) and inner.func.id == "getattr" \
                and len(inner.args) >= 2 and ast.dump(inner.args[0]) == subject \
                and isinstance(inner.args[1], ast.Constant) and inner.args[1].value == attribute:
            return True
    return False


_CONVERSIONS = frozenset({"str", "repr", "type", "isinstance", "issubclass", "len", "bool", "id", "hash"})


def _not_of_type(test: ast.AST) -> tuple[str, str] | None:
    """(subject, type) of ``not isinstance(subject, T)``."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) and isinstance(test.operand, ast.Call):
        call = test.operand
        if isinstance(call.func, ast.Name) and call.func.id == "isinstance" and len(call.args) == 2:
            return ast.dump(call.args[0]), ast.dump(call.args[1])
    return None


def _uses_as_its_type(statement: ast.AST, subject: str, kind: str) -> bool:
    """Whether a statement under ``if not isinstance(subject, T):`` uses the subject as data: stores it, reads
    into it or passes it on — anything but raising about it, converting it to ``T`` or describing it."""
    if isinstance(statement, ast.Raise):
        return False
    skipped = set()
    for inner in walk(statement):
        if isinstance(inner, ast.Call) and (ast.dump(inner.func) == kind or isinstance(inner.func, ast.Name)
                                            and inner.func.id in _CONVERSIONS):
            skipped |= {id(n) for argument in inner.args for n in walk(argument)}
        if isinstance(inner, (ast.FormattedValue, ast.JoinedStr)):
            skipped |= {id(n) for n in walk(inner)}
    return any(ast.dump(inner) == subject and id(inner) not in skipped and isinstance(getattr(inner, "ctx", None), ast.Load)
               for inner in walk(statement))


def _not_a_class_then_subclass(node: ast.BoolOp) -> bool:
    """``isinstance(x, type) or issubclass(x, …)``: issubclass runs exactly when x is no class."""
    if not isinstance(node.op, ast.Or):
        return False
    for index, operand in enumerate(node.values[:-1]):
        if isinstance(operand, ast.Call) and isinstance(operand.func, ast.Name) and operand.func.id == "isinstance" \
                and len(operand.args) == 2 and isinstance(operand.args[1], ast.Name) and operand.args[1].id == "type":
            subject = ast.dump(operand.args[0])
            if any(isinstance(c, ast.Call) and isinstance(c.func, ast.Name) and c.func.id == "issubclass"
                   and c.args and ast.dump(c.args[0]) == subject
                   for later in node.values[index + 1:] for c in walk(later)):
                return True
    return False


def _emptiness_subject(test: ast.AST) -> str | None:
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) and \
            isinstance(test.operand, (ast.Name, ast.Attribute)):
        return ast.dump(test.operand)
    return None


def _missing_key(test: ast.AST) -> tuple[str, str] | None:
    """(key, container) of ``key not in container``."""
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.NotIn):
        return ast.dump(test.left), ast.dump(test.comparators[0])
    return None


def iterates_or_indexes(node: ast.AST, subject: str) -> bool:
    """Whether ``node`` loops over the subject or reads an element of it (``subject`` is an ``ast.dump``)."""
    for inner in walk(node):
        if isinstance(inner, (ast.For, ast.AsyncFor, ast.comprehension)) and ast.dump(inner.iter) == subject:
            return True
        if isinstance(inner, ast.Subscript) and isinstance(inner.ctx, ast.Load) and ast.dump(inner.value) == subject:
            return True
    return False


def _calls(node: ast.AST, subject: str) -> bool:
    """``subject(…)``, ``map(subject, …)``, ``filter(subject, …)``: the value is called."""
    for inner in walk(node):
        if isinstance(inner, ast.Call) and ast.dump(inner.func) == subject:
            return True
        if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name) and inner.func.id in ("map", "filter") \
                and inner.args and ast.dump(inner.args[0]) == subject:
            return True
    return False


def _looks_up(node: ast.AST, key: str, container: str) -> bool:
    return any(isinstance(inner, ast.Subscript) and isinstance(inner.ctx, ast.Load)
               and ast.dump(inner.value) == container and ast.dump(inner.slice) == key for inner in walk(node))


def _exits(block: list) -> bool:
    return bool(block) and isinstance(block[-1], (ast.Return, ast.Raise))


def blocks_against_their_test(tree: ast.AST) -> int:
    """``if not xs:`` whose first statements iterate or index ``xs``; ``if xs: return …`` followed by statements
    that do; ``if k not in d:`` whose first statements read ``d[k]``; ``k not in d and d[k]``."""
    count = 0
    for node in walk(tree):
        for block in blocks_of(node):
            for index, statement in enumerate(block[:-1]):
                if isinstance(statement, ast.If) and isinstance(statement.test, (ast.Name, ast.Attribute)) \
                        and _exits(statement.body) and not statement.orelse:
                    subject = ast.dump(statement.test)
                    count += any(iterates_or_indexes(s, subject) for s in block[index + 1:index + 3])
        if isinstance(node, ast.If):
            head = node.body[:2]
            if (subject := _emptiness_subject(node.test)) and any(iterates_or_indexes(s, subject)
                                                                  or _calls(s, subject) for s in head):
                count += 1
            if (missing := _missing_key(node.test)) and any(_looks_up(s, *missing) for s in head):
                count += 1
            if (absent := _absent_attribute(node.test)) and any(_reads_attribute(s, *absent) for s in head):
                count += 1
            count += _overwrites_what_it_found(node)
            if (present := _present_subject(node.test)) and any(dereferences(s, present) for s in node.orelse[:2]):
                count += 1
            if (untyped := _not_of_type(node.test)) and any(_uses_as_its_type(s, *untyped) for s in head):
                count += 1
        elif isinstance(node, ast.BoolOp):
            count += _not_a_class_then_subclass(node)
            for index, operand in enumerate(node.values[:-1] if isinstance(node.op, ast.And) else ()):
                missing, absent = _missing_key(operand), _absent_attribute(operand)
                count += bool(missing) and any(_looks_up(v, *missing) for v in node.values[index + 1:])
                count += bool(absent) and any(_reads_attribute(v, *absent) for v in node.values[index + 1:])
    return count
