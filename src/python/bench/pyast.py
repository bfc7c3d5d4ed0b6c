"""Parsing Python inside the harness, one tree at a time.

CPython 3.11 keeps the AST constructor's recursion depth in per-interpreter state: two threads turning source
into ``ast`` objects at once can interleave their counts and one of them fails with ``SystemError: AST
constructor recursion depth mismatch`` (python/cpython#106905). The harness scores units on worker threads
(planting decoys, scanning edits, locating functions), so every parse goes through one lock here; a parse takes
milliseconds, the runs it prepares take seconds. Code under test runs in its own process and is unaffected.
A library that parses on its own (Hypothesis reads a lambda's source to describe a strategy) is called inside
:func:`exclusive`, which holds the same lock.
"""

from __future__ import annotations

import ast
import contextlib
import threading

_ONE_AT_A_TIME = threading.RLock()  # re-entrant: a finalizer run inside a parse may parse too


def parse(source: str | bytes, filename: str = "<unknown>", mode: str = "exec", **options) -> ast.AST:
    """:func:`ast.parse`, never concurrently with another parse of this process."""
    with _ONE_AT_A_TIME:
        return ast.parse(source, filename, mode, **options)


@contextlib.contextmanager
def exclusive():
    """Hold the parse lock around code that may build ``ast`` objects itself, out of :func:`parse`'s sight."""
    with _ONE_AT_A_TIME:
        yield
