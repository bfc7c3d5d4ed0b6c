"""How a file treats one operand everywhere, and a mutant that treats it otherwise once.

:mod:`bench.mutate.habits` compares two operands the file compares elsewhere. A reader also holds one operand
to its habit: a flag the file always tests one way, a constant it always combines with one operator, two values
a function always subtracts. Each is counted on the file before and after the mutation
(:mod:`bench.mutate.contradictions` compares the counts):

* **a flag tested against its habit** — ``if not self._growing`` in a class whose other methods all test
  ``if self._growing``; ``if not self.by_value`` in ``_deserialize`` where ``_serialize`` tests it plainly;
  ``if not __debug__:`` in a file whose other checks all run under ``if __debug__:`` (a global name no function
  binds counts as a flag);
* **a constant combined against its habit** — ``value | 7`` beside ``value & 7`` and ``(value >> 4) & 7``;
  ``0 < hour`` beside ``0 <= minutes <= 59`` and ``0 <= seconds <= 59`` (orderings with a literal, read as
  ``x <op> literal``);
* **two operands combined against their habit** — ``value + self._start`` in a function that writes
  ``self._start - value`` elsewhere (the same two operands, in either order, by another operator);
* **a round constant made unround** — ``value / 1001`` beside ``timestamp * 1000``: a literal one away from a
  round number (a multiple of ten, a power of two, 12, 24, 60, 365) the file writes elsewhere, itself written
  once;
* **a conditional whose twin tests otherwise** — ``yes.append(item) if pred(item) else no.append(item)`` in one
  function and ``if not pred(item): yes.append(item) else: no.append(item)`` in its twin: the same two branches
  under different tests (a conditional expression and an ``if``/``else`` of one statement each alike);
* **a protocol method answering the opposite** — ``__contains__`` returning a ``not in`` or ``not …`` test,
  ``__eq__`` a ``!=`` test, ``__ne__`` a ``==`` test, ``__lt__``/``__le__`` a ``>``/``>=`` test and back;
* **a length test whose block reads fewer elements than it counts** — ``if len(part) == 2: return part[0]``,
  the idiom ``len(x) == 1`` then ``x[0]`` with its count moved.

Literals 0, 1 and -1 combine with every operator in ordinary code (``n + 1``, ``n - 1``), so they form no
habit of their own for arithmetic; an ordering with them still does (``0 <= x`` everywhere, then ``0 < x``).
"""

from __future__ import annotations

import ast
import collections

from bench.mutate.habits import odd_ones
from bench.mutate.kinds import functions, number_of, own_nodes
from bench.mutate.walks import walk

_ORDERINGS = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}
_MIRRORED = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}
_COMMON_LITERALS = (0, 1, -1)


def _tests(tree: ast.AST):
    """Every expression read as a truth value: a test of ``if``/``while``/a conditional/``assert``, and the
    operands of ``and``/``or``/``not`` inside them."""
    todo = [node.test for node in walk(tree) if isinstance(node, (ast.If, ast.While, ast.IfExp, ast.Assert))]
    while todo:
        test = todo.pop()
        yield test
        if isinstance(test, ast.BoolOp):
            todo.extend(test.values)
        elif isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            todo.append(test.operand)


def _flag(test: ast.AST, local: set[str]) -> tuple[str, bool] | None:
    """(the flag, tested plainly?) of ``self.flag`` / ``not self.flag``, and of a global name (``__debug__``,
    ``WIN``) no function binds: a local name means something else in each function."""
    plain = not (isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not))
    subject = test if plain else test.operand
    if isinstance(subject, ast.Attribute) and isinstance(subject.value, ast.Name) \
            or isinstance(subject, ast.Name) and subject.id not in local:
        return ast.dump(subject), plain
    return None


def _local_names(tree: ast.AST) -> set[str]:
    """Every name a function of the file binds: its parameters and what it assigns."""
    found = set()
    for function in walk(tree):
        if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            found |= {a.arg for a in walk(function.args) if isinstance(a, ast.arg)}
            found |= {n.id for n in walk(function) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
    return found


def flag_polarity(tree: ast.AST) -> int:
    """Flags (``self.x``, a global name) tested one way everywhere but once."""
    groups: dict[str, list[bool]] = collections.defaultdict(list)
    tests, local = list(_tests(tree)), _local_names(tree)
    negated = {id(t.operand) for t in tests if isinstance(t, ast.UnaryOp) and isinstance(t.op, ast.Not)}
    for test in tests:
        if id(test) not in negated and (found := _flag(test, local)):  # ``not self.x`` counts once, as itself
            groups[found[0]].append(found[1])
    return odd_ones(groups)


def constant_operators(tree: ast.AST) -> int:
    """Numeric literals combined with one operator everywhere but once: arithmetic and bitwise operators (0, 1 and
    -1 apart), and orderings read as ``x <op> literal``."""
    groups: dict[tuple, list[str]] = collections.defaultdict(list)
    for node in walk(tree):
        if isinstance(node, ast.BinOp):
            for operand in (node.left, node.right):
                value = number_of(operand)
                if value is not None and value not in _COMMON_LITERALS:
                    groups["arithmetic", value].append(type(node.op).__name__)
        elif isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            for index, op in enumerate(node.ops):
                if type(op) not in _ORDERINGS:
                    continue
                left, right = number_of(operands[index]), number_of(operands[index + 1])
                if right is not None and left is None:
                    groups["ordering", right].append(_ORDERINGS[type(op)])
                elif left is not None and right is None:
                    groups["ordering", left].append(_MIRRORED[_ORDERINGS[type(op)]])
    return odd_ones(groups)


def operand_pairs(tree: ast.AST) -> int:
    """Two operands (names or attributes, in either order) that one function combines by one operator everywhere
    but once: ``self._start - value`` beside ``value + self._start``."""
    count = 0
    for function in functions(tree):
        groups: dict[frozenset, list[str]] = collections.defaultdict(list)
        for node in own_nodes(function):
            if isinstance(node, ast.BinOp) and all(isinstance(o, (ast.Name, ast.Attribute))
                                                   for o in (node.left, node.right)):
                pair = frozenset((ast.dump(node.left), ast.dump(node.right)))
                if len(pair) == 2:
                    groups[pair].append(type(node.op).__name__)
        count += odd_ones(groups)
    return count


_ANSWERS = {"__contains__": ("In",), "__eq__": ("Eq", "Is"), "__ne__": ("NotEq", "IsNot"),
            "__lt__": ("Lt", "Gt"), "__le__": ("LtE", "GtE"), "__gt__": ("Gt", "Lt"), "__ge__": ("GtE", "LtE")}
_OPPOSITES = {"__contains__": ("NotIn",), "__eq__": ("NotEq", "IsNot"), "__ne__": ("Eq", "Is"),
              "__lt__": ("GtE", "LtE"), "__le__": ("Gt", "Lt"), "__gt__": ("LtE", "GtE"), "__ge__": ("Lt", "Gt")}


def opposite_protocol_answers(tree: ast.AST) -> int:
    """Protocol methods whose returned test answers the opposite question: ``__contains__`` returning
    ``k not in d`` or ``not …``, ``__eq__`` returning ``a != b``, ``__lt__`` returning ``a >= b``."""
    count = 0
    for function in (n for n in functions(tree) if n.name in _OPPOSITES):
        for node in own_nodes(function):
            if not isinstance(node, ast.Return) or node.value is None:
                continue
            value = node.value
            if isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.Not) and function.name == "__contains__":
                count += 1
            elif isinstance(value, ast.Compare) and len(value.ops) == 1:
                count += type(value.ops[0]).__name__ in _OPPOSITES[function.name]
    return count


def _length_test(test: ast.AST) -> tuple[str, int] | None:
    """(the measured value, the count) of ``len(x) == n``."""
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq) \
            and isinstance(test.left, ast.Call) and isinstance(test.left.func, ast.Name) \
            and test.left.func.id == "len" and len(test.left.args) == 1:
        count = number_of(test.comparators[0])
        if type(count) is int:
            return ast.dump(test.left.args[0]), count
    return None


def short_read_length_tests(tree: ast.AST) -> int:
    """``if len(x) == n:`` (n >= 2) whose block reads ``x`` only through indexes below ``n - 1``: it counts
    elements it never reads (``len(part) == 2`` then ``return part[0]``)."""
    count = 0
    for node in walk(tree):
        if not isinstance(node, ast.If) or (found := _length_test(node.test)) is None or found[1] < 2:
            continue
        subject, size = found
        reads = [inner for statement in node.body for inner in walk(statement) if ast.dump(inner) == subject]
        indexes = [inner.slice.value for statement in node.body for inner in walk(statement)
                   if isinstance(inner, ast.Subscript) and ast.dump(inner.value) == subject
                   and isinstance(inner.slice, ast.Constant) and type(inner.slice.value) is int]
        count += bool(reads) and len(indexes) == len(reads) and all(0 <= i < size - 1 for i in indexes)
    return count


_ROUND_UNITS = (12, 24, 60, 365)


def _round(value: int) -> bool:
    magnitude = abs(value)
    return magnitude >= 10 and magnitude % 10 == 0 or magnitude >= 8 and magnitude & (magnitude - 1) == 0 \
        or magnitude in _ROUND_UNITS


def unround_neighbours(tree: ast.AST) -> int:
    """Integer literals written once, one away from a round number the file writes elsewhere (``1001`` beside
    ``1000``)."""
    tally = collections.Counter(v for node in walk(tree) if (v := number_of(node)) is not None and type(v) is int
                                and not (isinstance(node, ast.Constant) and isinstance(node.value, bool)))
    return sum(1 for value, uses in tally.items() if uses == 1 and not _round(value)
               and any(_round(near) and tally[near] for near in (value - 1, value + 1)))


def _branch(block: list) -> ast.AST | None:
    """The expression a one-statement branch evaluates (``yes.append(item)``, ``return x``)."""
    if len(block) == 1 and isinstance(block[0], (ast.Expr, ast.Return)) and block[0].value is not None:
        return block[0].value
    return None


def _conditionals(tree: ast.AST):
    for node in walk(tree):
        if isinstance(node, ast.IfExp):
            yield node.test, node.body, node.orelse
        elif isinstance(node, ast.If) and (body := _branch(node.body)) and (orelse := _branch(node.orelse)):
            yield node.test, body, orelse


def conditional_twins_apart(tree: ast.AST) -> int:
    """Pairs of conditionals with the same two branches and different tests."""
    by_branches: dict[tuple, list[str]] = collections.defaultdict(list)
    for test, body, orelse in _conditionals(tree):
        by_branches[ast.dump(body), ast.dump(orelse)].append(ast.dump(test))
    return sum(1 for tests in by_branches.values() for i, a in enumerate(tests) for b in tests[i + 1:] if a != b)
