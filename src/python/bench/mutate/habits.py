"""How a file writes things, and a mutant that writes them otherwise.

A single-site mutant stands out when it is the one place a file departs from its own habit. Each habit is
counted on the file before and after the mutation (:mod:`bench.mutate.contradictions` compares the counts):

* **an operator the file writes nowhere else** — the only ``<=`` of a file that compares with ``<``, the only
  ``//``; ``-=`` where the file only writes ``+=``; ``and`` used as a value (``data and missing``) in a file that
  uses ``and`` only in tests; ``while not …`` in a file whose loops never test that way; ``flags |
  SEL_IN_RANGE`` as a test where the file tests flags with ``&``;
* **a comparison written against the file's own habit** — ``pos <= 0`` where the file tests the same two
  operands as ``pos > 0`` / ``0 < pos`` at least twice and no other way;
* **a bound no other comparison of the file uses** — ``2 <= month`` beside ``1 <= day``, ``1 <= week``,
  ``1 <= year`` (where another bound is the file's habit, used at least twice);
* **a statement that no longer matches its twin** — two statements or expressions within 100 lines (simple
  statements, ``return <number>``, a short ``if``, ``for`` or ``while`` with its blocks, or an operation,
  comparison, call or subscript of 3–12 names and literals), or differed in one name, attribute or literal
  (``''.join(['cytoolz', dot, tail])`` / ``''.join(['toolz', dot, tail])``; ``minutes * 60`` / ``seconds * 60``;
  ``self.CLASS or ipaddress.ip_address`` / ``self.CLASS or ipaddress.ip_interface``), and now differ more or in
  shape.
"""

from __future__ import annotations

import ast
import collections

from bench.mutate.walks import walk


TWIN_LINES = 100
MIN_TWIN_CHARS = 12
MAX_TWIN_IF_CHARS = 160
MIN_EXPRESSION_LEAVES, MAX_EXPRESSION_LEAVES = 3, 12
_TWIN_EXPRESSIONS = (ast.BinOp, ast.BoolOp, ast.Compare, ast.Call, ast.Subscript, ast.UnaryOp)
MIN_LITERAL_HABIT = 2
_MIRROR = {ast.Lt: ast.Gt, ast.Gt: ast.Lt, ast.LtE: ast.GtE, ast.GtE: ast.LtE}
_SYMMETRIC = (ast.Eq, ast.NotEq, ast.Is, ast.IsNot)
_TEST_PARENTS = (ast.If, ast.While, ast.IfExp, ast.Assert, ast.UnaryOp, ast.BoolOp, ast.comprehension)


def operator_kinds(tree: ast.AST) -> set[str]:
    """The comparison, arithmetic and boolean operators a file writes; ``and``/``or`` apart as a test and as a
    value."""
    kinds = set()
    for node in walk(tree):
        if isinstance(node, ast.Compare):
            kinds |= {type(op).__name__ for op in node.ops}
        elif isinstance(node, ast.BinOp):
            kinds.add(type(node.op).__name__)
        elif isinstance(node, ast.AugAssign):
            kinds.add(type(node.op).__name__ + "=")
        if isinstance(node, ast.While) and isinstance(node.test, ast.UnaryOp) and isinstance(node.test.op, ast.Not):
            kinds.add("not as a loop's test")
        for test in _tests_of(node):
            if isinstance(test, ast.BinOp):
                kinds.add(f"{type(test.op).__name__} as a test")
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.BoolOp):
                place = "test" if isinstance(node, _TEST_PARENTS) else "value"
                kinds.add(f"{type(child.op).__name__} as a {place}")
    return kinds


def _tests_of(node: ast.AST) -> list:
    """The expressions ``node`` reads as truth values: an ``if``/``while``/conditional's test, ``and``/``or``
    operands."""
    if isinstance(node, (ast.If, ast.While, ast.IfExp)):
        return [node.test]
    return list(node.values) if isinstance(node, ast.BoolOp) else []


def _normal_comparison(node: ast.Compare) -> tuple[tuple[str, str], str] | None:
    """((left, right), operator) with mirrored orderings and symmetric tests written one way."""
    if len(node.ops) != 1:
        return None
    op, left, right = node.ops[0], ast.dump(node.left), ast.dump(node.comparators[0])
    if isinstance(op, tuple(_MIRROR)) and right < left:
        return (right, left), _MIRROR[type(op)].__name__
    if isinstance(op, _SYMMETRIC) and right < left:
        return (right, left), type(op).__name__
    return (left, right), type(op).__name__


def odd_comparisons(tree: ast.AST) -> int:
    """Comparisons whose two operands the file compares elsewhere with another operator: the odd one out of
    ``validated is missing`` twice becoming ``validated is not missing`` once (counted as the operators each
    pair of operands is compared with, beyond the first), and of ``pos > 0`` three times beside ``pos <= 0``
    once."""
    groups: dict[tuple, list[str]] = collections.defaultdict(list)
    for node in walk(tree):
        if isinstance(node, ast.Compare) and (normal := _normal_comparison(node)):
            groups[normal[0]].append(normal[1])
    return odd_ones(groups)


def odd_ones(groups: dict) -> int:
    """How far each group of uses departs from one habit: every extra kind beyond the first, and one more when
    a kind is used once against another used at least twice (the odd one out)."""
    return sum(len(set(uses)) - 1 + has_odd_one_out(uses) for uses in groups.values())


def has_odd_one_out(uses: list) -> bool:
    """Two kinds of use, one of them once and the other at least twice."""
    tally = collections.Counter(uses)
    if len(tally) != 2:
        return False
    (_, many), (_, few) = tally.most_common()
    return few == 1 and many >= 2


def _bounds(tree: ast.AST):
    """(operator and side, the integer) of every comparison of an integer literal with something else."""
    for node in walk(tree):
        if not isinstance(node, ast.Compare):
            continue
        operands = [node.left, *node.comparators]
        for index, op in enumerate(node.ops):
            for side, operand in (("left", operands[index]), ("right", operands[index + 1])):
                if isinstance(operand, ast.Constant) and type(operand.value) is int:
                    yield (type(op).__name__, side), operand.value


def odd_literals(tree: ast.AST) -> int:
    """Integer bounds used once where the same kind of comparison (operator, side) uses another bound at least
    MIN_LITERAL_HABIT times: ``2 <= month`` among ``1 <= day``, ``1 <= week``, ``1 <= year``, ``0 <= hour``."""
    groups: dict[tuple, collections.Counter] = collections.defaultdict(collections.Counter)
    for kind, value in _bounds(tree):
        groups[kind][value] += 1
    return sum(sum(1 for n in tally.values() if n == 1) for tally in groups.values()
               if max(tally.values()) >= MIN_LITERAL_HABIT)


def _leaves(node: ast.AST) -> tuple[tuple, tuple]:
    """(the statement's shape, its names, attributes and literals in order)."""
    shape, leaves = [], []
    for inner in walk(node):
        shape.append(type(inner).__name__)
        if isinstance(inner, ast.Name):
            leaves.append(inner.id)
        elif isinstance(inner, ast.Attribute):
            leaves.append(inner.attr)
        elif isinstance(inner, ast.Constant):
            leaves.append(repr(inner.value))
    return tuple(shape), tuple(leaves)


def _twin_candidates(tree: ast.AST):
    simple = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr, ast.Return)
    for node in walk(tree):
        if isinstance(node, simple) and (len(ast.unparse(node)) >= MIN_TWIN_CHARS or _returns_a_number(node)):
            yield node
        elif isinstance(node, (ast.If, ast.For, ast.While)) and len(ast.unparse(node)) <= MAX_TWIN_IF_CHARS:
            yield node
        elif isinstance(node, _TWIN_EXPRESSIONS) and MIN_EXPRESSION_LEAVES <= _leaf_count(node) <= MAX_EXPRESSION_LEAVES:
            yield node


def _returns_a_number(node: ast.AST) -> bool:
    """``return 1``: short, but sibling methods that return the same number are twins."""
    return isinstance(node, ast.Return) and isinstance(node.value, ast.Constant) and type(node.value.value) is int


def nested_same_boolean(tree: ast.AST) -> int:
    """``a or (b or c)``, ``a and (b and c)``: parentheses that change nothing, a form nobody writes."""
    return sum(1 for node in walk(tree) if isinstance(node, ast.BoolOp)
               for value in node.values if isinstance(value, ast.BoolOp) and type(value.op) is type(node.op))


def fixed_booleans(tree: ast.AST) -> int:
    """``args and None``, ``x and False``, ``x or True``: a value-picking ``and``/``or`` whose result the literal
    fixes."""
    count = 0
    for node in walk(tree):
        if isinstance(node, ast.BoolOp) and isinstance(node.values[-1], ast.Constant):
            last = node.values[-1].value
            count += (isinstance(node.op, ast.And) and last in (None, False)) or \
                (isinstance(node.op, ast.Or) and last is True)
    return count


def _leaf_count(node: ast.AST) -> int:
    return sum(1 for inner in walk(node) if isinstance(inner, (ast.Name, ast.Attribute, ast.Constant)))


def twin_pairs(tree: ast.AST) -> tuple[int, int]:
    """(pairs that are the same, pairs that differ in at most one name, attribute or literal) among statements of
    one shape within TWIN_LINES lines; one name renamed throughout (``(hour - int(hour)) * 60`` / ``(minute -
    int(minute)) * 60``) is one difference."""
    by_shape: dict[tuple, list[tuple[int, tuple]]] = collections.defaultdict(list)
    for node in _twin_candidates(tree):
        shape, leaves = _leaves(node)
        by_shape[shape].append((node.lineno, leaves))
    same = near = 0
    for statements in by_shape.values():
        statements.sort()
        for index, (line, leaves) in enumerate(statements):
            for other_line, other in statements[index + 1:]:
                if other_line - line > TWIN_LINES:
                    break
                differences = len({(a, b) for a, b in zip(leaves, other) if a != b})  # a renaming is one
                same += differences == 0
                near += differences <= 1
    return same, near


def broken_twin(before: ast.AST, after: ast.AST) -> bool:
    """Whether the mutation parts a pair of twins: same -> different, or one difference -> more."""
    return any(a < b for a, b in zip(twin_pairs(after), twin_pairs(before)))


def idle_signs(tree: ast.AST) -> int:
    """``-0``, ``+0``: a sign on zero does nothing (``x[-1]`` made ``x[-0]``)."""
    return sum(1 for node in walk(tree) if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd))
               and isinstance(node.operand, ast.Constant) and node.operand.value == 0)


def empty_ranges(tree: ast.AST) -> int:
    """``2 < x < 2``, ``5 <= x < 3``: a chained range between two literals that holds nothing."""
    count = 0
    for node in walk(tree):
        if not (isinstance(node, ast.Compare) and len(node.ops) == 2):
            continue
        low, high = node.left, node.comparators[1]
        if not all(isinstance(b, ast.Constant) and type(b.value) in (int, float) for b in (low, high)):
            continue
        ops = {type(op) for op in node.ops}
        if ops <= {ast.Gt, ast.GtE}:
            low, high = high, low
        elif not ops <= {ast.Lt, ast.LtE}:
            continue
        strict = bool(ops & {ast.Lt, ast.Gt})
        count += low.value > high.value or (low.value == high.value and strict)
    return count


def meeting_splits(tree: ast.AST) -> int:
    """``xs[:r], xs[r:]``: a head and a tail that meet — a mutant that moves one bound makes them overlap or
    leave a gap."""
    count = 0
    for node in walk(tree):
        if not isinstance(node, ast.Tuple):
            continue
        uppers, lowers = set(), set()
        for element in node.elts:
            if isinstance(element, ast.Subscript) and isinstance(element.slice, ast.Slice) and element.slice.step is None:
                part = element.slice
                if part.lower is None and part.upper is not None:
                    uppers.add((ast.dump(element.value), ast.dump(part.upper)))
                elif part.upper is None and part.lower is not None:
                    lowers.add((ast.dump(element.value), ast.dump(part.lower)))
        count += len(uppers & lowers)
    return count
