"""Forms that no longer do their work: what reading U found after every earlier rule had passed the mutant.

Each is counted on the file before and after the mutation (:mod:`bench.mutate.contradictions` compares the
counts):

* **a placeholder that is never filled** — ``"context.eval_ctx.{keyword.key} = "``: a plain string holding
  ``{name}`` where ``name`` is bound in the function, neither an f-string nor formatted (``.format``,
  ``format_map``, ``%``), what a linter reports as a missing f prefix (``{str(items[-1])}`` too);
* **an option stored and never read** — ``self.strict = strict`` in ``__init__`` and no ``.strict`` read anywhere
  in the file;
* **a type test after the read that needs the type** — ``other._included == self._included or type(other) in
  (set, frozenset) and …``: an operand reads into a value and a later operand of the same ``and``/``or`` tests
  the value's type;
* **a parameter's own default rejected** — ``if not callable(on_error): raise TypeError(…)`` in a function whose
  ``on_error`` defaults to None (it was ``on_error is not None and not callable(on_error)``): a test that holds
  for the default, before a ``raise``;
* **a flag tested for a type** — ``isinstance(numparse, bytes)`` where ``numparse`` defaults to True or False;
* **a count of nothing** — ``sum(0 for i in seq)``: a sum whose every term is the literal 0;
* **twin functions made the same** — ``select_values`` whose body now reads exactly as ``select_keys``'s above
  it: two functions of the file, named apart, with one body;
* **a branch an earlier bare test settles** — ``prefix = match_expr[:2]``, then ``elif prefix:`` before ``elif
  match_expr and …`` in the same chain: a non-empty ``match_expr`` always makes ``prefix`` true, so the later
  branch can never run.
"""

from __future__ import annotations

import ast
import re

from bench.mutate.kinds import defaults_of, functions, own_nodes
from bench.mutate.lone_forms import chains
from bench.mutate.walks import walk

_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)(?:[.\[(][^{}]*)?(?:![rsa])?(?::[^{}]*)?\}")
_FORMATTERS = frozenset({"format", "format_map"})


def _formatted(tree: ast.AST) -> set[int]:
    """ids of the strings the file formats or keeps as templates: ``"…".format(…)`` (``_("…").format(…)`` too),
    ``"…" % x``, and strings stored under a name, a key or a default (a template used elsewhere)."""
    found = set()
    for node in walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _FORMATTERS:
            receiver = node.func.value
            found |= {id(receiver)} | ({id(a) for a in receiver.args} if isinstance(receiver, ast.Call) else set())
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
            found.add(id(node.left))
        elif isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            found.add(id(node.value))
        elif isinstance(node, ast.Dict):
            found |= {id(v) for v in node.values}
        elif isinstance(node, ast.arguments):
            found |= {id(d) for d in node.defaults + node.kw_defaults if d is not None}
    return found


def unfilled_placeholders(tree: ast.AST) -> int:
    """Plain strings of a function holding ``{name}`` for a name the function binds or reads, that nothing
    formats: an f-string written without its ``f``."""
    formatted, count = _formatted(tree), 0
    for function in functions(tree):
        nodes = list(own_nodes(function))
        names = {n.id for n in nodes if isinstance(n, ast.Name)} | {a.arg for a in walk(function.args)
                                                                    if isinstance(a, ast.arg)}
        pieces = {id(v) for n in nodes if isinstance(n, ast.JoinedStr) for v in n.values}  # parts of f-strings
        for node in nodes:
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in formatted \
                    and id(node) not in pieces:
                count += any(name in names for name in _PLACEHOLDER.findall(node.value))
    return count


def _read_attributes(tree: ast.AST) -> set[str]:
    found = {n.attr for n in walk(tree) if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Load)}
    strings = {n.value for n in walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)}
    return found | strings  # getattr(self, "name") and __slots__ read by name


def options_never_read(tree: ast.AST) -> int:
    """Attributes ``__init__`` copies from its own parameter (``self.strict = strict``) that nothing in the file
    reads."""
    read, count = _read_attributes(tree), 0
    for node in walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == "__init__":
            params = {a.arg for a in node.args.args + node.args.kwonlyargs}
            for statement in own_nodes(node):
                if isinstance(statement, ast.Assign) and isinstance(statement.value, ast.Name) \
                        and statement.value.id in params:
                    count += sum(1 for t in statement.targets if isinstance(t, ast.Attribute)
                                 and isinstance(t.value, ast.Name) and t.value.id == "self" and t.attr not in read)
    return count


def _type_tested(node: ast.AST) -> set[str]:
    """The subjects whose type ``node`` tests: ``isinstance(x, T)``, ``type(x) is T``, ``type(x) in (…)``."""
    found = set()
    for inner in walk(node):
        if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name) and inner.args \
                and inner.func.id in ("isinstance", "type"):
            found.add(ast.dump(inner.args[0]))
    return found


def _read_into(node: ast.AST) -> set[str]:
    return {ast.dump(inner.value) for inner in walk(node) if isinstance(inner, ast.Attribute)
            and isinstance(inner.value, ast.Name) and inner.value.id not in ("self", "cls")}


def type_tests_after_reads(tree: ast.AST) -> int:
    """Operands of ``and``/``or`` that read into a value (``other._included``) before a later operand tests the
    value's type (``type(other) in (set, frozenset)``)."""
    count = 0
    for node in walk(tree):
        if isinstance(node, ast.BoolOp):
            for index, operand in enumerate(node.values[:-1]):
                unguarded = _read_into(operand) - _type_tested(operand)
                later = set().union(*(_type_tested(v) for v in node.values[index + 1:]))
                count += len(unguarded & later)
    return count


def _prefix_of(value: ast.AST) -> str | None:
    """The name ``value`` is a leading slice of (``match_expr[:2]``), so it is empty exactly when that name is."""
    if isinstance(value, ast.Subscript) and isinstance(value.value, ast.Name) and isinstance(value.slice, ast.Slice) \
            and value.slice.lower is None and value.slice.step is None and value.slice.upper is not None:
        return value.value.id
    return None


def settled_branches(tree: ast.AST) -> int:
    """``elif prefix:`` (``prefix = match_expr[:2]``) before ``elif match_expr and …`` in one chain: the later
    branch needs ``match_expr`` non-empty, which the earlier bare test has already taken."""
    count = 0
    for function in functions(tree):
        prefixes = {}
        for node in own_nodes(function):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                    and (whole := _prefix_of(node.value)):
                prefixes[node.targets[0].id] = whole
        for tests in chains(function):
            for index, test in enumerate(tests):
                whole = prefixes.get(test.id) if isinstance(test, ast.Name) else None
                count += whole is not None and any(_requires(later, whole) for later in tests[index + 1:])
    return count


def _requires(test: ast.AST, name: str) -> bool:
    """Whether ``test`` holds only when ``name`` is true: ``name`` itself or a first operand of an ``and``."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return any(isinstance(v, ast.Name) and v.id == name for v in test.values)
    return isinstance(test, ast.Name) and test.id == name


def _holds_for_none(test: ast.AST, name: str) -> bool | None:
    """Whether ``test`` holds when ``name`` is None (None when that cannot be told from the test alone)."""
    if isinstance(test, ast.Name) and test.id == name:
        return False
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = _holds_for_none(test.operand, name)
        return None if inner is None else not inner
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.left, ast.Name) \
            and test.left.id == name and isinstance(test.comparators[0], ast.Constant) \
            and test.comparators[0].value is None:
        return isinstance(test.ops[0], (ast.Is, ast.Eq))
    if isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id in ("callable", "isinstance") \
            and test.args and isinstance(test.args[0], ast.Name) and test.args[0].id == name:
        admits_none = any("None" in ast.dump(kind) for kind in test.args[1:])  # isinstance(x, (int, type(None)))
        return None if test.func.id == "isinstance" and admits_none else False
    if isinstance(test, ast.BoolOp):
        parts = [_holds_for_none(v, name) for v in test.values]
        decided, undecided = (False, True) if isinstance(test.op, ast.And) else (True, False)
        return decided if decided in parts else undecided if all(p is undecided for p in parts) else None
    return None


def defaults_rejected(tree: ast.AST) -> int:
    """``if`` statements that raise on a test holding for a parameter's default None."""
    count = 0
    for function in functions(tree):
        optional = [name for name, default in defaults_of(function).items()
                    if isinstance(default, ast.Constant) and default.value is None]
        for node in own_nodes(function):
            if isinstance(node, ast.If) and node.body and isinstance(node.body[-1], ast.Raise):
                count += sum(1 for name in optional if _holds_for_none(node.test, name) is True)
    return count


def flags_tested_for_type(tree: ast.AST) -> int:
    """``isinstance(numparse, bytes)`` where ``numparse`` defaults to True or False."""
    count = 0
    for function in functions(tree):
        flags = {name for name, default in defaults_of(function).items()
                 if isinstance(default, ast.Constant) and isinstance(default.value, bool)}
        for node in own_nodes(function):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "isinstance" \
                    and len(node.args) == 2 and isinstance(node.args[0], ast.Name) and node.args[0].id in flags:
                count += not any(isinstance(n, ast.Name) and n.id in ("bool", "int") for n in walk(node.args[1]))
    return count


def zero_sums(tree: ast.AST) -> int:
    """``sum(0 for i in seq)`` and ``sum([0 for …])``: a total that is 0 whatever the sequence."""
    count = 0
    for node in walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "sum" and node.args:
            term = node.args[0]
            if isinstance(term, (ast.GeneratorExp, ast.ListComp)) and isinstance(term.elt, ast.Constant) \
                    and term.elt.value == 0 and not isinstance(term.elt.value, bool):
                count += 1
    return count


def identical_twins(tree: ast.AST) -> int:
    """Pairs of functions of the file with different names and the same body (docstrings aside)."""
    bodies: dict[str, int] = {}
    for function in functions(tree):
        body = function.body[1:] if ast.get_docstring(function) is not None else function.body
        if body and not all(isinstance(s, (ast.Pass, ast.Raise, ast.Expr)) for s in body):  # stubs look alike
            key = ast.dump(ast.Module(body=body, type_ignores=[]))
            bodies[key] = bodies.get(key, 0) + 1
    return sum(n * (n - 1) // 2 for n in bodies.values())
