"""Anomalies a mutant adds to its file that a linter or a skimming reader sees without working anything out.

:mod:`bench.mutate.readability` refuses patterns of the mutated *site* (a ``not (...)`` wrapper, a name left
unread). Read by hand, engine-3 mutants that passed it still gave themselves away in these ways that only show
against the rest of the file; each is counted here on the file before and after the mutation, and a mutant
that adds one is a giveaway:

* **a read of a name that may be unbound** — a local used where none of its assignments reaches (only inside
  an ``if`` that raises, only after the use, only in another branch): what a linter reports as
  used-before-assignment;
* **a guard that then reads the value** — ``x is None and x.attr``, ``x is not None or x.attr``,
  ``isinstance(x, str) or x.strip()``, ``if not match: match.group(…)``, ``if cache is not None: return …``
  followed by ``cache[k]``, the same with ``NotImplemented``: a part that runs only when it cannot work;
* **arithmetic that does nothing** — ``1 * x``, ``x + 0``, ``x / 1`` (``1 / x`` turned into ``1 * x``);
* **a value built and never used** — a local filled through ``x[k] = v`` or ``x.append(…)`` and never read (the
  function now returns its input instead);
* **a try that returns the same constant either way** — ``return None`` in a ``try`` whose handler returns None;
* **a statement that no longer matches its twin nearby** — a statement of 12 characters or more that had an
  identical copy within 30 lines (the same splice in two adjacent methods) and now differs from it;
* **arguments in the reverse of the file's own order** — ``f(b, a)`` where at least two other calls of ``f`` in
  the file pass ``a``'s expression first (four twin wrappers, one with its arguments swapped), or a call within
  30 lines passes the same expressions with the two the other way round;
* **a store under another key than the lookup** — ``cache[k]`` read and ``cache[args] = v`` stored in one
  function;
* **the same condition tested twice in a row** — ``if keys is None: …`` then ``if keys is None: …`` where
  the second block resolves ``values``;
* **arguments against the callee's own signature** — a function or class of the file called with its own
  parameter names in another order;
* **a name left unread** (:mod:`bench.mutate.unread`) — an import no longer used, a local assigned and never
  read, a parameter overwritten before it is read (what omissions leave behind).

:mod:`bench.mutate.contradictions` adds what later readings found: a test that now disagrees with its block or
with how the file writes the same test elsewhere. :func:`added_anomaly` compares the counts of both; engine version 4 refuses such mutants and
``scripts/giveaways.py`` measures them in a pool.
"""

from __future__ import annotations

import ast
import collections
import functools

from bench import pyast
from bench.mutate.contradictions import added_contradiction
from bench.mutate.guards import blocks_of, compares_as_data, dereferences
from bench.mutate.parentheses import lone_groups
from bench.mutate.unread import unread_names
from bench.mutate.walks import remembered, walk

_TRANSPARENT = {("Try", "body"), ("TryStar", "body"), ("Try", "finalbody"), ("TryStar", "finalbody"),
                ("With", "body"), ("AsyncWith", "body")}  # blocks that always run on: what they bind reaches on
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
MIN_TWINS = 2


class _Original:
    """The unmutated file's tree and what each rule counted on it: the same for every candidate of one file, so
    counted once, not once per candidate (the engine tries dozens of candidates per module)."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.tree = pyast.parse(data)
        self._counts: dict = {}
        self.lone_groups = lone_groups(data.decode("utf-8", "replace"))

    def count(self, rule):
        if rule not in self._counts:
            self._counts[rule] = rule(self.tree)
        return self._counts[rule]


@functools.lru_cache(maxsize=1)  # the candidates of one file come one after another
def _original(data: bytes) -> _Original:
    return _Original(data)


def added_anomaly(original: bytes, start: int, end: int, replacement: str) -> str:
    """The anomaly the mutation ``original[start:end] -> replacement`` adds to the file ("" when none)."""
    with remembered():
        return _added_anomaly(original, start, end, replacement)


def _added_anomaly(original: bytes, start: int, end: int, replacement: str) -> str:
    mutated = original[:start] + replacement.encode("utf-8") + original[end:]
    try:
        before, after = _original(original), pyast.parse(mutated)
    except (SyntaxError, ValueError):
        return ""
    if lone_groups(mutated.decode("utf-8", "replace")) > before.lone_groups:
        return "parentheses holding one operand"
    if twinned_statements(after) < before.count(twinned_statements):
        return "a statement that no longer matches its twin nearby"
    for name, count in (("a read of a name that may be unbound", maybe_unbound_reads),
                        ("a guard that then reads the value", none_then_read),
                        ("arithmetic that does nothing", identity_operations),
                        ("a value built and never used", built_and_dropped),
                        ("a try that returns the same constant either way", same_result_both_ways),
                        ("a store under another key than the lookup", key_mismatches),
                        ("the same condition tested twice in a row", repeated_conditions),
                        ("arguments against the callee's own signature", arguments_against_signature),
                        ("arguments in the reverse of the file's own order", reversed_twin_calls),
                        ("a name left unread", unread_names)):
        if count(after) > before.count(count):
            return name
    return added_contradiction(before.tree, after, before.count)


def _children_with_fields(node: ast.AST):
    for field, value in ast.iter_fields(node):
        for child in value if isinstance(value, list) else [value]:
            if isinstance(child, ast.AST):
                yield field, child


_BLOCKS = ("body", "orelse", "finalbody", "handlers", "cases")


def _walk_blocks(function: ast.AST):
    """(node, the chain of (statement type, block field, id) that encloses it) for a function's own nodes."""
    stack = [(child, ((type(function).__name__, "body", id(function)),)) for child in function.body]
    while stack:
        node, chain = stack.pop()
        yield node, chain
        if isinstance(node, _SCOPES):
            continue
        for field, child in _children_with_fields(node):
            if field in _BLOCKS or isinstance(node, _COMPREHENSIONS):  # a comprehension's names stay inside it
                stack.append((child, chain + ((type(node).__name__, field if field in _BLOCKS else "", id(node)),)))
            else:
                stack.append((child, chain))


def _position(node: ast.AST) -> tuple[int, int]:
    return (getattr(node, "lineno", 0), getattr(node, "col_offset", 0))


def _reaches(binding_chain: tuple, read_chain: tuple) -> bool:
    """An assignment reaches a later read when every block around it, but those that always run on, is also
    around the read."""
    around_read = set(read_chain)
    return all(link in around_read or link[:2] in _TRANSPARENT for link in binding_chain)


def _bindings(function: ast.AST) -> tuple[dict, set]:
    """name -> [(position, chain)] of the function's own assignments; and the names bound function-wide
    (parameters, global and nonlocal declarations)."""
    found: dict[str, list] = collections.defaultdict(list)
    arguments = function.args
    wide = {a.arg for a in arguments.posonlyargs + arguments.args + arguments.kwonlyargs}
    wide |= {a.arg for a in (arguments.vararg, arguments.kwarg) if a is not None}
    for node, chain in _walk_blocks(function):
        if isinstance(node, _COMPREHENSIONS):  # bound before its element, and only inside it
            for generator in node.generators:
                for target in walk(generator.target):
                    if isinstance(target, ast.Name):
                        found[target.id].append((_position(node), chain + ((type(node).__name__, "", id(node)),)))
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            found[node.id].append((_position(node), chain))
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            wide |= set(node.names)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                found[(alias.asname or alias.name).split(".")[0]].append((_position(node), chain))
        elif isinstance(node, ast.ExceptHandler) and node.name:
            found[node.name].append((_position(node), chain + (("ExceptHandler", "body", id(node)),)))  # its own
        elif isinstance(node, _SCOPES) and not isinstance(node, ast.Lambda):
            found[node.name].append((_position(node), chain))
    return found, wide


def maybe_unbound_reads(tree: ast.AST) -> int:
    """Reads of a function's local names that none of its assignments reaches."""
    count = 0
    for function in walk(tree):
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        bound, wide = _bindings(function)
        for node, chain in _walk_blocks(function):
            if not (isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)) or node.id in wide:
                continue
            if node.id in bound and not any(where <= _position(node) and _reaches(links, chain)
                                            for where, links in bound[node.id]):
                count += 1
    return count


def _is_sentinel(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value is None or \
        isinstance(node, ast.Name) and node.id == "NotImplemented"


def _none_test(node: ast.AST) -> tuple[str, bool] | None:
    """(the subject, whether the test is true when the subject is unusable) of ``x is None`` / ``x is not None``
    / ``x == None`` / ``isinstance(x, T)`` / ``not isinstance(x, T)``."""
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and _is_sentinel(node.comparators[0]) \
            and isinstance(node.ops[0], (ast.Is, ast.IsNot, ast.Eq, ast.NotEq)):
        return ast.dump(node.left), isinstance(node.ops[0], (ast.Is, ast.Eq))
    negated = isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not)
    call = node.operand if negated else node
    if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "isinstance" \
            and len(call.args) == 2:
        return ast.dump(call.args[0]), negated
    return None


def _falsy_test(node: ast.AST) -> str | None:
    """The subject of a test that holds when the subject is unusable: ``not x``, ``x is None``,
    ``not isinstance(x, T)``."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not) and isinstance(node.operand, ast.Name):
        return ast.dump(node.operand)
    test = _none_test(node)
    return test[0] if test and test[1] else None


def none_then_read(tree: ast.AST) -> int:
    """``x is None and <reads x>`` (or ``x in xs``, ``x < n``), ``x is not None or <reads x>``, and ``if not x: <reads x>`` before any new
    assignment: a part that runs only when it cannot work."""
    count = 0
    for node in walk(tree):
        for block in blocks_of(node):  # if <x usable>: return …  followed by code that reads x
            for index, statement in enumerate(block[:-1]):
                test = _none_test(statement.test) if isinstance(statement, ast.If) else None
                if test and not test[1] and statement.body and isinstance(statement.body[-1], (ast.Return, ast.Raise)) \
                        and any(_uses_after_guard(later, test[0], statement.test) for later in block[index + 1:index + 4]):
                    count += 1
        if isinstance(node, ast.If) and (subject := _falsy_test(node.test)) is not None:
            count += any(dereferences(statement, subject) for statement in node.body[:1])
        if not isinstance(node, ast.BoolOp):
            continue
        wants_none = isinstance(node.op, ast.And)
        for index, operand in enumerate(node.values[:-1]):
            test = _none_test(operand)
            if test and test[1] == wants_none and any(
                    dereferences(later, test[0]) or isinstance(operand, ast.Compare) and compares_as_data(later, test[0])
                    for later in node.values[index + 1:]):
                count += 1
    return count


def _uses_after_guard(statement: ast.AST, subject: str, test: ast.AST) -> bool:
    """Whether ``statement`` works with the subject the guard let through: reads into it, or — for the
    ``NotImplemented`` sentinel, which is never data — uses it at all."""
    if isinstance(test, ast.Compare) and isinstance(test.comparators[0], ast.Name):  # NotImplemented
        return any(ast.dump(n) == subject for n in walk(statement) if isinstance(n, ast.Name))
    return dereferences(statement, subject)


def repeated_conditions(tree: ast.AST) -> int:
    """Two ``if`` statements in a row testing the same condition (``if keys is None`` twice where the second
    block resolves ``values``)."""
    count = 0
    for node in walk(tree):
        for block in blocks_of(node):
            count += sum(1 for first, second in zip(block, block[1:]) if isinstance(first, ast.If)
                         and isinstance(second, ast.If) and ast.dump(first.test) == ast.dump(second.test))
    return count


def _signatures(tree: ast.AST) -> dict[str, list[str]]:
    """Name -> positional parameter names of the functions and classes (their ``__init__``) the file defines."""
    found: dict[str, list[str]] = {}
    for node in walk(tree):
        target = node
        if isinstance(node, ast.ClassDef):
            target = next((n for n in node.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"), None)
        if isinstance(target, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names = [a.arg for a in target.args.posonlyargs + target.args.args]
            found.setdefault(node.name, names[1:] if names[:1] in (["self"], ["cls"]) else names)
    return found


def arguments_against_signature(tree: ast.AST) -> int:
    """Calls of a function or class of this file whose positional arguments named like its own parameters come in
    another order (``_FixupStream(readable, stream)`` for ``__init__(self, stream, readable)``; ``_group(tlist,
    sql.Identifier, match, valid_prev, post, valid_next)`` for ``_group(tlist, cls, match, valid_prev, valid_next,
    post)``)."""
    signatures = _signatures(tree)
    count = 0
    for node in walk(tree):
        if not isinstance(node, ast.Call) or len(node.args) < 2:
            continue
        callee = node.func.id if isinstance(node.func, ast.Name) else node.func.attr \
            if isinstance(node.func, ast.Attribute) else ""
        params = signatures.get(callee, [])
        names = [a.id for a in node.args if isinstance(a, ast.Name) and a.id in params]  # ``cls``, ``sql.X`` aside
        if len(names) >= 2 and len(set(names)) == len(names) and names != sorted(names, key=params.index):
            count += 1
    return count


_MUTATORS = frozenset({"append", "extend", "update", "add", "insert", "setdefault", "appendleft", "extendleft",
                       "discard", "clear", "sort", "reverse"})


def built_and_dropped(tree: ast.AST) -> int:
    """Locals a function builds (assigns, then fills through ``x[k] = v`` or ``x.append(...)``) and never reads
    as a value: work thrown away, what a linter reports as an unused variable."""
    count = 0
    for function in walk(tree):
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        assigned, read, filled = set(), set(), set()
        for node, _ in _walk_blocks(function):
            if isinstance(node, ast.Assign):
                assigned |= {t.id for t in node.targets if isinstance(t, ast.Name)}
            elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store) and isinstance(node.value, ast.Name):
                filled.add(id(node.value))
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _MUTATORS \
                    and isinstance(node.func.value, ast.Name):
                filled.add(id(node.func.value))
        for node, _ in _walk_blocks(function):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and id(node) not in filled:
                read.add(node.id)
        count += len(assigned - read)
    return count


def same_result_both_ways(tree: ast.AST) -> int:
    """A ``try`` whose body ends by returning the constant every handler returns: it cannot change anything."""
    count = 0
    for node in walk(tree):
        if isinstance(node, ast.Try) and node.handlers and isinstance(node.body[-1], ast.Return):
            value = ast.dump(node.body[-1].value) if node.body[-1].value is not None else "None"
            ends = [h.body[-1] for h in node.handlers]
            if isinstance(node.body[-1].value, (ast.Constant, type(None))) and all(
                    isinstance(e, ast.Return) and (ast.dump(e.value) if e.value is not None else "None") == value
                    for e in ends):
                count += 1
    return count


def _is_literal(node: ast.AST, value: int) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) in (int, float) and node.value == value


def identity_operations(tree: ast.AST) -> int:
    """``x * 1``, ``1 * x``, ``x + 0``, ``0 + x``, ``x - 0``, ``x / 1``, ``x // 1``, ``x ** 1``: arithmetic that
    does nothing, which no one writes."""
    count = 0
    for node in walk(tree):
        if not isinstance(node, ast.BinOp):
            continue
        left, right, op = node.left, node.right, node.op
        if isinstance(op, ast.Mult) and (_is_literal(left, 1) or _is_literal(right, 1)) or \
                isinstance(op, ast.Add) and (_is_literal(left, 0) or _is_literal(right, 0)) or \
                isinstance(op, (ast.Sub, ast.Div, ast.FloorDiv, ast.Pow)) and \
                _is_literal(right, 0 if isinstance(op, ast.Sub) else 1):
            count += 1
    return count


MIN_TWIN_CHARS = 12  # ``cache[k] = v`` counts; ``return x`` repeats by chance
TWIN_LINES = 30


def twinned_statements(tree: ast.AST) -> int:
    """Simple statements of at least MIN_TWIN_CHARS characters with an identical copy within TWIN_LINES lines
    (the same splice in two adjacent methods): a mutant that breaks one copy stands out against the other."""
    simple = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr, ast.Return)
    by_dump: dict[str, list[int]] = collections.defaultdict(list)
    for node in walk(tree):
        if isinstance(node, simple) and len(ast.unparse(node)) >= MIN_TWIN_CHARS:
            by_dump[ast.dump(node)].append(node.lineno)
    return sum(1 for lines in by_dump.values() for line in lines
               if any(other != line and abs(other - line) <= TWIN_LINES for other in lines))


def reversed_twin_calls(tree: ast.AST) -> int:
    """Calls whose first two positional arguments stand in the reverse of at least two other calls of the same
    function in the file (the second's expression is what those pass first)."""
    calls = [node for node in walk(tree) if isinstance(node, ast.Call) and len(node.args) >= 2
             and not any(isinstance(a, ast.Starred) for a in node.args[:2])]
    # Each call's parts dumped once, and calls found by their argument list: comparing every pair of calls
    # dumped the arguments again for each pair (minutes on one module of a few hundred calls).
    dumped = [(ast.dump(call.func), tuple(ast.dump(a) for a in call.args)) for call in calls]
    firsts: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    lines_by_args: dict[tuple, list[int]] = collections.defaultdict(list)
    for call, (callee, own) in zip(calls, dumped):
        firsts[callee][own[0]] += 1
        lines_by_args[own].append(call.lineno)
    count = 0
    for call, (callee, own) in zip(calls, dumped):
        first, second = own[0], own[1]
        if first != second and firsts[callee][second] >= MIN_TWINS and firsts[callee][first] == 1:
            count += 1
            continue
        for i in range(len(own) - 1):  # a call nearby passes the same expressions with these two the other way
            swapped = own[:i] + (own[i + 1], own[i]) + own[i + 2:]
            if own[i] != own[i + 1] and any(abs(line - call.lineno) <= TWIN_LINES
                                            for line in lines_by_args.get(swapped, ())):
                count += 1
                break
    return count


def key_mismatches(tree: ast.AST) -> int:
    """Containers a function reads under one key and stores under another (``cache[k]`` looked up,
    ``cache[args] = v`` stored): the store can never be found."""
    count = 0
    for function in walk(tree):
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        keys: dict[str, tuple[set, set]] = collections.defaultdict(lambda: (set(), set()))
        for node, _ in _walk_blocks(function):
            if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) \
                    and not isinstance(node.slice, (ast.Slice, ast.Constant)):
                keys[node.value.id][isinstance(node.ctx, ast.Store)].add(ast.dump(node.slice))
        count += sum(1 for loads, stores in keys.values() if loads and stores and not loads & stores)
    return count
