"""``ast.walk``, remembered while the giveaway rules read one mutant.

:func:`bench.mutate.anomalies.added_anomaly` runs some sixty rules over the mutated file, and most walk the
whole tree or each function again; on a module of a thousand lines that was most of engine 4's time. Inside
:func:`remembered` each node's walk is listed once and handed out again (the same nodes in the same order), so
a rule reads a list instead of rebuilding the traversal. Outside it, :func:`walk` is ``ast.walk``. The rules
only read trees, so a remembered walk never goes stale.
"""

from __future__ import annotations

import ast
import contextlib
import threading

_held = threading.local()  # the harness mutates on worker threads: each keeps its own


@contextlib.contextmanager
def remembered():
    """Remember every walk made in the block (nested blocks share the outer one's)."""
    outer = getattr(_held, "walks", None)
    _held.walks = {} if outer is None else outer
    try:
        yield
    finally:
        _held.walks = outer


def walk(node: ast.AST):
    """The nodes ``ast.walk(node)`` yields, in its order."""
    walks = getattr(_held, "walks", None)
    if walks is None:
        return ast.walk(node)
    found = walks.get(id(node))
    if found is None or found[0] is not node:  # the node is held beside its walk, so its id is not reused
        found = walks[id(node)] = (node, tuple(ast.walk(node)))
    return found[1]
