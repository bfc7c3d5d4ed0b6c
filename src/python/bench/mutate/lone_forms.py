"""Forms a mutant leaves standing alone: what reading S found after every earlier rule had passed the mutant.

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
* **parentheses holding one operand** — ``and (`` opening a group over three lines that holds a single call:
  what dropping one side of ``a(left) or a(right)`` leaves behind (read from the text, since the tree keeps no
  parentheses).
"""

from __future__ import annotations

import ast
import io
import keyword
import tokenize

from bench.mutate.habits import odd_ones
from bench.mutate.kinds import functions, own_nodes

_ORDERINGS = (ast.Lt, ast.LtE, ast.Gt, ast.GtE)
_SINGLE = (ast.Name, ast.Attribute, ast.Call, ast.Subscript)


def _none_defaults(function: ast.AST) -> set[str]:
    """The parameters of ``function`` whose default is ``None``."""
    arguments = function.args
    positional = arguments.posonlyargs + arguments.args
    pairs = list(zip(positional[len(positional) - len(arguments.defaults):], arguments.defaults))
    pairs += [(a, d) for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults) if d is not None]
    return {a.arg for a, d in pairs if isinstance(d, ast.Constant) and d.value is None}


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
        optional = _none_defaults(function)
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


def _chains(tree: ast.AST):
    """The tests of every ``if``/``elif`` chain, in order."""
    inner = set()
    for node in ast.walk(tree):
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
            if any(ast.dump(n) == subject for n in ast.walk(compare)):
                return compare
    return None


def guards_the_twin_keeps(tree: ast.AST) -> int:
    """Bare comparisons in an ``if``/``elif`` chain whose other branches guard the same kind of comparison with
    ``x is not None and …``."""
    count = 0
    for tests in _chains(tree):
        guarded = [c for c in map(_guarded_comparison, tests) if c is not None]
        if guarded:
            shapes = {tuple(type(op) in _ORDERINGS for op in c.ops) for c in guarded}
            count += sum(1 for t in tests if isinstance(t, ast.Compare)
                         and tuple(type(op) in _ORDERINGS for op in t.ops) in shapes)
    return count


def _predicate(test: ast.AST) -> tuple[str, bool] | None:
    """(the callee, tested plainly?) of ``f(…)`` / ``not f(…)``."""
    plain = not (isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not))
    call = test if plain else test.operand
    if isinstance(call, ast.Call) and isinstance(call.func, (ast.Name, ast.Attribute)):
        return ast.dump(call.func), plain
    return None


def chain_polarity(tree: ast.AST) -> int:
    """Predicates an ``if``/``elif`` chain calls one way in every branch but one."""
    groups: dict[tuple, list[bool]] = {}
    for number, tests in enumerate(_chains(tree)):
        for found in filter(None, map(_predicate, tests)):
            groups.setdefault((number, found[0]), []).append(found[1])
    return odd_ones(groups)


def lone_groups(source: str) -> int:
    """Parentheses over several lines that group a single name, attribute, call or subscript (``and (``, a newline,
    ``check(left)``, a newline, ``)``): not a call's, a subscript's or a tuple's."""
    try:
        tokens = [t for t in tokenize.generate_tokens(io.StringIO(source).readline)
                  if t.type not in (tokenize.NL, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT)]
    except (tokenize.TokenError, SyntaxError):
        return 0
    lines = source.splitlines(keepends=True)
    count, stack, previous = 0, [], None
    for token in tokens:
        if token.type == tokenize.OP and token.string in "([{":
            opens_group = token.string == "(" and not _ends_an_operand(previous)
            stack.append((opens_group, token.end))
        elif token.type == tokenize.OP and token.string in ")]}" and stack:
            opens_group, start = stack.pop()
            if opens_group and start[0] != token.start[0]:
                count += _holds_one_operand(_between(lines, start, token.start))
        previous = token
    return count


def _ends_an_operand(token) -> bool:
    """Whether a ``(`` after ``token`` calls or subscripts what comes before it."""
    if token is None:
        return False
    if token.type == tokenize.NAME:
        return not keyword.iskeyword(token.string)
    return token.type == tokenize.STRING or token.type == tokenize.OP and token.string in ")]}"


def _between(lines: list[str], start: tuple[int, int], end: tuple[int, int]) -> str:
    (row, col), (last, stop) = start, end
    if row == last:
        return lines[row - 1][col:stop]
    return lines[row - 1][col:] + "".join(lines[row:last - 1]) + lines[last - 1][:stop]


def _holds_one_operand(inner: str) -> bool:
    try:
        node = ast.parse("(" + inner + ")", mode="eval").body
    except SyntaxError:
        return False
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        node = node.operand
    return isinstance(node, _SINGLE)
