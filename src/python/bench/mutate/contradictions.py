"""Contradictions a mutant adds within a few lines of its site: the test it changed now disagrees with what the
code around it does, or with how the file writes the same thing elsewhere (:mod:`bench.mutate.habits`).

Read by hand after every rule of :mod:`bench.mutate.anomalies`, single-site mutants still marked themselves
this way. Each is counted on the file before and after the mutation (as the anomalies are); a mutant that adds
one is a giveaway:

* **a test that contradicts its block** — ``if not items:`` whose block iterates, indexes or calls ``items``
  (``if not valuefunc: g = map(valuefunc, g)``);
  ``if items: return …`` followed by code that indexes ``items``; ``if key not in table:`` whose block reads
  ``table[key]`` (also as ``key not in table and table[key]``); ``if not hasattr(v, "unwrap"): v.unwrap()``;
  ``if endpos is not None: endpos = len(text)``;
  ``isinstance(x, type) or issubclass(x, Base)``;
* **a guard that no longer guards what it reads** — ``prev and prev.ws`` turned into ``tlist and prev.ws``;
  a head and tail that no longer meet, ``A[:r + 1], A[r:]``;
* **a sign on zero** (``x[-0]``) and **a range that holds nothing** (``2 < x < 2``) — what the off-by-one of a
  literal can make of ``x[-1]`` and ``1 < x < 2``;
* **an index past a non-empty guard** — ``results and results[1]``, ``if results: … results[1]``: the guard
  only promises one element; and a head that overlaps its tail, ``form[1], form[1:]``;
* **a test repeated in one function** — a condition that, after the mutation, is word for word another test of
  the same function (the early exit ``maxsplit == 0`` tested again inside the loop);
* **a loop that re-tests what it never changes** — ``if recursive: break`` inside a loop that assigns the
  result it should test (a test made only of names the loop never assigns);
* **a value used against its kind** — ``if iterable < 1``, ``len(func)``, ``factory[k] = v`` in a function
  that iterates ``iterable`` and calls ``func`` and ``factory`` (:mod:`bench.mutate.kinds`);
* **one operand against its habit** — a flag tested the other way once, a literal combined by another operator
  once, two operands a function subtracts added once; a protocol method answering the opposite; a length test
  whose block reads fewer elements than it counts, a round constant made unround (:mod:`bench.mutate.consistency`);
* **a slip a linter reports** — a loop variable read after its loop, a test its enclosing test settles, a call
  asked for nothing (``read(0)``), a value passed through when its type test fails, a value only ever read to
  compute itself, an attribute read after the guard that left when it was there, a number put into text,
  NotImplemented for the very type a method handles
  (:mod:`bench.mutate.lint_slips`);
* **arguments whose order every reader knows** — swapped in a call of a builtin, the standard library or a
  builtin type's method, or a conventional pair (:mod:`bench.mutate.known_order`).
"""

from __future__ import annotations

import ast

from bench.mutate.consistency import (
    conditional_twins_apart,
    constant_operators,
    flag_polarity,
    operand_pairs,
    opposite_protocol_answers,
    short_read_length_tests,
    unround_neighbours,
)
from bench.mutate.habits import (
    broken_twin,
    empty_ranges,
    fixed_booleans,
    idle_signs,
    nested_same_boolean,
    meeting_splits,
    odd_comparisons,
    odd_literals,
    operator_kinds,
)
from bench.mutate.guards import blocks_against_their_test
from bench.mutate.lint_slips import (
    attribute_read_after_leaving_when_present,
    calls_for_nothing,
    loop_variables_read_after,
    not_implemented_for_own_type,
    numbers_into_text,
    passed_through_on_failure,
    self_fed_values,
    settled_tests,
)
from bench.mutate.dead_forms import (
    defaults_rejected,
    flags_tested_for_type,
    identical_twins,
    options_never_read,
    settled_branches,
    type_tests_after_reads,
    unfilled_placeholders,
    zero_sums,
)
from bench.mutate.known_order import crossed_parameters, swapped_known_order
from bench.mutate.lone_forms import (
    cancelling_clauses,
    chain_polarity,
    exits_when_present_then_reads,
    guards_the_twin_keeps,
    sentinels_passed_on,
    unguarded_optionals,
)
from bench.mutate.kinds import dead_final_stores, functions, misused_kinds, number_of, own_nodes
from bench.mutate.walks import walk



def added_contradiction(before: ast.AST, after: ast.AST, counted_before=None) -> str:
    """The contradiction the mutation ``before -> after`` adds ("" when none): the named ones first, then the
    general habits (a guard, a comparison, a twin) that many of them also break. ``counted_before(rule)`` is
    ``rule(before)``, possibly remembered from an earlier candidate of the same file."""
    was = counted_before or (lambda rule: rule(before))
    if operator_kinds(after) - was(operator_kinds):
        return "an operator the file writes nowhere else"
    if swapped_known_order(before, after):
        return "arguments whose order every reader knows"
    if meeting_splits(after) < was(meeting_splits):
        return "a head and tail that no longer meet"
    for name, count in _NAMED:
        if count(after) > was(count):
            return name
    if guarded_reads(after) < was(guarded_reads):
        return "a guard that no longer guards what it reads"
    if odd_comparisons(after) > was(odd_comparisons):
        return "a comparison written against the file's own habit"
    if broken_twin(before, after):
        return "a statement that no longer matches its twin"
    for name, count in _OPERAND_HABITS:
        if count(after) > was(count):
            return name
    return ""


def _guard_subject(test: ast.AST) -> ast.AST:
    """What ``x``, ``x is not None`` or ``isinstance(x, T)`` tests."""
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.IsNot):
        return test.left
    if isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "isinstance" and test.args:
        return test.args[0]
    return test


def guarded_reads(tree: ast.AST) -> int:
    """``x and x.attr`` / ``x and x[k]`` / ``x is not None and x.attr``: a later operand reading what an earlier
    one tested; ``if x is not None: … x …``: a block using what its test found present; ``x[-1] if x else
    None``: a conditional reading into what it tested."""
    count = 0
    for node in walk(tree):
        if isinstance(node, ast.If):
            subject = _guard_subject(node.test)
            if isinstance(subject, (ast.Name, ast.Attribute)) and subject is not node.test or isinstance(node.test, ast.Name):
                count += any(ast.dump(inner) == ast.dump(subject) for s in node.body[:2] for inner in walk(s))
        if isinstance(node, ast.IfExp) and isinstance(subject := _guard_subject(node.test), (ast.Name, ast.Attribute)):
            count += _reads_into(node.body, ast.dump(subject))  # ``xs[-1] if xs else None``
        if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.And):
            for index, operand in enumerate(node.values[:-1]):
                subject = operand.left if isinstance(operand, ast.Compare) and len(operand.ops) == 1 \
                    and isinstance(operand.ops[0], ast.IsNot) else operand
                if isinstance(subject, (ast.Name, ast.Attribute)):
                    count += any(_reads_into(v, ast.dump(subject)) for v in node.values[index + 1:])
    return count


def _reads_into(node: ast.AST, subject: str) -> bool:
    return any(isinstance(inner, (ast.Attribute, ast.Subscript)) and ast.dump(inner.value) == subject
               for inner in walk(node))


def _indexed_past_first(node: ast.AST, subject: str) -> bool:
    for inner in walk(node):
        if isinstance(inner, ast.Subscript) and isinstance(inner.ctx, ast.Load) and ast.dump(inner.value) == subject \
                and type(index := number_of(inner.slice)) is int and (index >= 1 or index <= -2):
            return True
    return False


def _head_over_tail(node: ast.Tuple) -> bool:
    """``xs[1], xs[1:]``: a head taken from inside the tail beside it."""
    heads, tails = {}, {}
    for element in node.elts:
        if isinstance(element, ast.Subscript) and isinstance(element.slice, ast.Constant) \
                and type(element.slice.value) is int:
            heads[ast.dump(element.value)] = element.slice.value
        elif isinstance(element, ast.Subscript) and isinstance(element.slice, ast.Slice) \
                and element.slice.upper is None and isinstance(element.slice.lower, ast.Constant):
            tails[ast.dump(element.value)] = element.slice.lower.value
    return any(key in tails and type(tails[key]) is int and 0 <= tails[key] <= value for key, value in heads.items())


def _non_empty_subject(test: ast.AST) -> ast.AST | None:
    """What ``xs``, ``len(xs) > 0``, ``len(xs) >= 1`` or ``len(xs) != 0`` promises one element of."""
    if isinstance(test, (ast.Name, ast.Attribute)):
        return test
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.left, ast.Call) \
            and isinstance(test.left.func, ast.Name) and test.left.func.id == "len" and len(test.left.args) == 1 \
            and isinstance(test.comparators[0], ast.Constant) and type(test.comparators[0].value) is int:
        op, bound = type(test.ops[0]), test.comparators[0].value
        if (op, bound) in ((ast.Gt, 0), (ast.GtE, 1), (ast.NotEq, 0)):
            return test.left.args[0]
    return None


def index_past_guard(tree: ast.AST) -> int:
    """``xs and xs[1]``, ``len(xs) > 0 and xs[-2]``, ``if xs: … xs[1]``, ``xs[1] if xs else None``: a test
    promises one element, the index needs two; and ``xs[1], xs[1:]``: a head that overlaps its tail."""
    count = 0
    for node in walk(tree):
        if isinstance(node, ast.Tuple):
            count += _head_over_tail(node)
        if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.And):
            for index, operand in enumerate(node.values[:-1]):
                if (subject := _non_empty_subject(operand)) is not None:
                    count += any(_indexed_past_first(v, ast.dump(subject)) for v in node.values[index + 1:])
        elif isinstance(node, ast.If) and (subject := _non_empty_subject(node.test)) is not None:
            count += any(_indexed_past_first(s, ast.dump(subject)) for s in node.body[:1])
        elif isinstance(node, ast.IfExp) and (subject := _non_empty_subject(node.test)) is not None:
            count += _indexed_past_first(node.body, ast.dump(subject))
    return count


def repeated_tests(tree: ast.AST) -> int:
    """Tests (``if``, ``elif``, ``while``, a conditional expression) of one function that repeat another of its
    tests word for word."""
    count = 0
    for function in functions(tree):
        tests = [ast.dump(node.test) for node in own_nodes(function) if isinstance(node, (ast.If, ast.While, ast.IfExp))]
        count += len(tests) - len(set(tests))
    return count


def _assigned_names(node: ast.AST) -> set[str]:
    return {inner.id for inner in walk(node) if isinstance(inner, ast.Name) and isinstance(inner.ctx, ast.Store)}


def invariant_loop_tests(tree: ast.AST) -> int:
    """Tests inside a loop made only of names the loop never assigns (``if recursive: break``) in a loop that
    does assign names: whatever the loop computes, the test cannot see it."""
    count = 0
    for loop in walk(tree):
        if not isinstance(loop, (ast.For, ast.AsyncFor, ast.While)):
            continue
        changing = _assigned_names(loop)
        if not changing:
            continue
        for node in (n for statement in loop.body for n in walk(statement)):
            if isinstance(node, ast.If) and isinstance(node.test, (ast.Name, ast.UnaryOp, ast.BoolOp)):
                parts = list(walk(node.test))
                names = {n.id for n in parts if isinstance(n, ast.Name)}
                plain = all(isinstance(n, (ast.Name, ast.UnaryOp, ast.BoolOp, ast.Load, ast.Not, ast.And, ast.Or))
                            for n in parts)
                count += plain and bool(names) and not names & changing
    return count




def _bounds_of(test: ast.AST) -> tuple[str, str, float] | None:
    """(subject, operator, number) of ``subject <op> number``."""
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        if (number := number_of(test.comparators[0])) is not None:
            return ast.dump(test.left), type(test.ops[0]).__name__, number
    return None


_HOLDS = {"Eq": lambda x, c: x == c, "NotEq": lambda x, c: x != c, "Lt": lambda x, c: x < c,
          "LtE": lambda x, c: x <= c, "Gt": lambda x, c: x > c, "GtE": lambda x, c: x >= c}


def _conjuncts(node: ast.BoolOp) -> list:
    """The operands of an ``and``, with ``and``s nested in it opened up."""
    found = []
    for value in node.values:
        found += _conjuncts(value) if isinstance(value, ast.BoolOp) and isinstance(value.op, ast.And) else [value]
    return found


def impossible_conjunctions(tree: ast.AST) -> int:
    """``nargs == -1 and nargs > 1``: tests of one name against numbers, joined by ``and``, that no value passes
    (checked on the numbers the tests name and the points between and around them)."""
    count = 0
    for node in walk(tree):
        if not (isinstance(node, ast.BoolOp) and isinstance(node.op, ast.And)):
            continue
        by_subject: dict[str, list] = {}
        for operand in _conjuncts(node):
            if (bound := _bounds_of(operand)) and bound[1] in _HOLDS:
                by_subject.setdefault(bound[0], []).append(bound[1:])
        for tests in by_subject.values():
            numbers = sorted({c for _, c in tests})
            probes = numbers + [n + 0.5 for n in numbers] + [numbers[0] - 0.5]
            count += len(tests) >= 2 and not any(all(_HOLDS[op](x, c) for op, c in tests) for x in probes)
    return count


def _tuple_sizes(tree: ast.AST) -> dict[str, int]:
    """Functions of the file every return of which (but ``return None``) is a tuple display of one size."""
    sizes = {}
    for function in walk(tree):
        if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            returns = [n.value for n in own_nodes(function) if isinstance(n, ast.Return) and n.value is not None
                       and not (isinstance(n.value, ast.Constant) and n.value.value is None)]  # None: no index either
            lengths = {len(value.elts) if isinstance(value, ast.Tuple) else -1 for value in returns}
            if returns and len(lengths) == 1 and -1 not in lengths:
                sizes[function.name] = lengths.pop()
    return sizes


def index_past_returned_tuple(tree: ast.AST) -> int:
    """``self._token_matching(…)[2]`` where ``_token_matching`` returns pairs only."""
    sizes, count = _tuple_sizes(tree), 0
    for node in walk(tree):
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Call) and isinstance(node.slice, ast.Constant) \
                and type(node.slice.value) is int:
            func = node.value.func
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            count += name in sizes and node.slice.value >= sizes[name]
    return count


_NAMED = (("a test that contradicts its block", blocks_against_their_test),
          ("an index past a non-empty guard", index_past_guard),
          ("a test repeated in one function", repeated_tests),
          ("a loop that re-tests what it never changes", invariant_loop_tests),
          ("a value used against its kind", misused_kinds),
          ("arguments crossed against the function's own parameters", crossed_parameters),
          ("a sign on zero", idle_signs),
          ("a range that holds nothing", empty_ranges),
          ("a condition that can never hold", impossible_conjunctions),
          ("a boolean whose result a literal fixes", fixed_booleans),
          ("parentheses that change nothing", nested_same_boolean),
          ("a value computed last and never read", dead_final_stores),
          ("an index past what the function returns", index_past_returned_tuple),
          ("a bound no other comparison of the file uses", odd_literals),
          ("a value that defaults to None, used unguarded", unguarded_optionals),
          ("a guard its twin branch keeps", guards_the_twin_keeps),
          ("a test of a chain negated once", chain_polarity),
          ("a clause that cancels itself", cancelling_clauses),
          ("a sentinel passed on where its test finds it", sentinels_passed_on),
          ("an exit when the value is there, then reading it", exits_when_present_then_reads),
          ("a placeholder that is never filled", unfilled_placeholders),
          ("an option stored and never read", options_never_read),
          ("a type test after the read that needs the type", type_tests_after_reads),
          ("a branch an earlier bare test settles", settled_branches),
          ("a parameter's own default rejected", defaults_rejected),
          ("a flag tested for a type", flags_tested_for_type),
          ("a count of nothing", zero_sums),
          ("twin functions made the same", identical_twins))

# One operand against its habit: asked last, after the named rules and the habits of two operands above.
_OPERAND_HABITS = (("a flag tested against its habit", flag_polarity),
                   ("a constant combined against its habit", constant_operators),
                   ("two operands combined against their habit", operand_pairs),
                   ("a protocol method answering the opposite", opposite_protocol_answers),
                   ("a length test whose block reads fewer elements than it counts", short_read_length_tests),
                   ("a round constant made unround", unround_neighbours),
                   ("a conditional whose twin tests otherwise", conditional_twins_apart),
                   ("a loop variable read after its loop", loop_variables_read_after),
                   ("a test its enclosing test settles", settled_tests),
                   ("a call asked for nothing", calls_for_nothing),
                   ("a value passed through when its type test fails", passed_through_on_failure),
                   ("a value only ever read to compute itself", self_fed_values),
                   ("an attribute read after the guard that left when it was there",
                    attribute_read_after_leaving_when_present),
                   ("a number put into text", numbers_into_text),
                   ("NotImplemented for the very type a method handles", not_implemented_for_own_type))
