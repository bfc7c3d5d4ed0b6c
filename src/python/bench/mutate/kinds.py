"""A value used against its kind: a wrong variable that a reader sees is the wrong *sort* of thing.

``if iterable < 1``, ``len(func)``, ``factory[k] = v``, ``pred + 1``: the function calls ``func``, ``pred`` and
``factory`` and iterates ``iterable`` elsewhere, and the mutant now counts, compares, indexes or does arithmetic
with them. Counted per function before and after the mutation (:mod:`bench.mutate.contradictions`).
"""

from __future__ import annotations

import ast

from bench.mutate.walks import walk

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_ORDERINGS = (ast.Lt, ast.LtE, ast.Gt, ast.GtE)


def functions(tree: ast.AST):
    """Every function (and async function) the tree defines, nested ones too."""
    return (node for node in walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)))


def number_of(node: ast.AST) -> int | float | None:
    """The number a literal writes, ``-2`` included (the tree writes the minus sign as an operator)."""
    sign = 1
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        node, sign = node.operand, -1
    return sign * node.value if isinstance(node, ast.Constant) and type(node.value) in (int, float) else None


def defaults_of(function: ast.AST) -> dict[str, ast.AST]:
    """Parameter name -> its default expression, positional and keyword-only alike."""
    arguments = function.args
    positional = arguments.posonlyargs + arguments.args
    pairs = list(zip(positional[len(positional) - len(arguments.defaults):], arguments.defaults))
    pairs += [(a, d) for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults) if d is not None]
    return {a.arg: d for a, d in pairs}


def own_nodes(function: ast.AST):
    """The nodes of a function's own body, not of functions or classes defined inside it."""
    todo = list(ast.iter_child_nodes(function))
    while todo:
        node = todo.pop()
        yield node
        if not isinstance(node, _SCOPES):
            todo.extend(ast.iter_child_nodes(node))


# Builtins that consume their one argument as an iterable: ``sequence = list(iterable)``.
_CONSUMERS = frozenset({"list", "tuple", "set", "frozenset", "iter", "sorted", "reversed", "enumerate"})


def _called_and_iterated(nodes: list) -> tuple[set[str], set[str]]:
    called = {n.func.id for n in nodes if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
    iterated = {n.iter.id for n in nodes if isinstance(n, (ast.For, ast.AsyncFor, ast.comprehension))
                and isinstance(n.iter, ast.Name)}
    iterated |= {n.args[0].id for n in nodes if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
                 and n.func.id in _CONSUMERS and len(n.args) == 1 and isinstance(n.args[0], ast.Name)}
    return called, iterated


def _numeric_uses(nodes: list) -> list[str]:
    """Names compared by order, used in arithmetic or as a bound of ``range``."""
    found = []
    for node in nodes:
        if isinstance(node, ast.Compare) and any(isinstance(op, _ORDERINGS) for op in node.ops):
            found += [o.id for o in (node.left, *node.comparators) if isinstance(o, ast.Name)]
        elif isinstance(node, ast.BinOp) and not isinstance(node.op, ast.Mod):  # "%s" % x formats
            found += [o.id for o in (node.left, node.right) if isinstance(o, ast.Name)]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "range":
            found += [o.id for o in node.args if isinstance(o, ast.Name)]
    return found


def misused_kinds(tree: ast.AST) -> int:
    """Uses of a function's names against their kind: a name it calls, indexed, counted, compared by order or
    used in arithmetic; a name it iterates compared by order or used in arithmetic."""
    count = 0
    for function in walk(tree):
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        nodes = list(own_nodes(function))
        called, iterated = _called_and_iterated(nodes)
        numeric = _numeric_uses(nodes)
        count += sum(1 for name in numeric if name in called or name in iterated)
        count += sum(1 for n in nodes if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name)
                     and n.value.id in called)
        count += sum(1 for n in nodes if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
                     and n.func.id == "len" and len(n.args) == 1 and isinstance(n.args[0], ast.Name)
                     and n.args[0].id in called)
    return count


def _loop_nodes(function: ast.AST) -> set[int]:
    return {id(inner) for loop in own_nodes(function) if isinstance(loop, (ast.For, ast.AsyncFor, ast.While))
            for inner in walk(loop)}


def dead_final_stores(tree: ast.AST) -> int:
    """Names a function reads and then assigns once more, outside any loop, never to read again: the last value
    it computed is thrown away (``data = post(data)`` then ``return original_data``)."""
    count = 0
    for function in walk(tree):
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        nodes, in_loops = list(own_nodes(function)), _loop_nodes(function)
        declared = {name for n in nodes if isinstance(n, (ast.Global, ast.Nonlocal)) for name in n.names}
        loads, stores = {}, {}
        for node in nodes:
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id not in declared:
                where = (node.lineno, node.col_offset)
                loads[node.id] = max(loads.get(node.id, where), where)
            elif isinstance(node, (ast.Assign, ast.AnnAssign)) and id(node) not in in_loops:
                done = (node.end_lineno, node.end_col_offset)  # the name is bound once its value is computed
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    if isinstance(target, ast.Name) and target.id not in declared:
                        stores[target.id] = max(stores.get(target.id, done), done)
        count += sum(1 for name, last in stores.items() if name in loads and last > loads[name])
    return count
