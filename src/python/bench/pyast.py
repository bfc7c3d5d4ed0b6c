"""Parsing Python inside the harness, one tree at a time, in the grammar of the tasks' interpreters.

CPython 3.11 keeps the AST constructor's recursion depth in per-interpreter state: two threads turning source
into ``ast`` objects at once can interleave their counts and one of them fails with ``SystemError: AST
constructor recursion depth mismatch`` (python/cpython#106905). The harness scores units on worker threads
(planting decoys, scanning edits, locating functions), so every parse goes through one lock here; a parse takes
milliseconds, the runs it prepares take seconds. Code under test runs in its own process and is unaffected.
A library that parses on its own (Hypothesis reads a lambda's source to describe a strategy) is called inside
:func:`exclusive`, which holds the same lock.

The harness runs on Python 3.11 and the tasks on newer interpreters: a task's code may use 3.12's type
parameters (``class Registry[T: Unit](...)``, ``def f[T](x: T)``, ``type Alias = ...``), which 3.11's parser
refuses; ten pint tasks had no probes, no near misses, and every candidate of theirs counted as not compiling.
Source that fails to parse is parsed again with those parameter lists blanked (:func:`blank_type_parameters`):
every other character keeps its line and column, so what the harness locates in the tree is where it is in the
file. The blanked text is only ever parsed, never run.
"""

from __future__ import annotations

import ast
import contextlib
import threading

_ONE_AT_A_TIME = threading.RLock()  # re-entrant: a finalizer run inside a parse may parse too


def parse(source: str | bytes, filename: str = "<unknown>", mode: str = "exec", **options) -> ast.AST:
    """:func:`ast.parse`, never concurrently with another parse of this process; source in 3.12's grammar is
    read with its type parameters blanked. A source no reading parses raises the error of the source itself."""
    first = None
    for text in _readings(source):
        try:
            with _ONE_AT_A_TIME:
                return ast.parse(text, filename, mode, **options)
        except SyntaxError as exc:
            first = first or exc
    raise first


def compiles(source: str, filename: str) -> bool:
    """Whether ``source`` is valid Python for the tasks' interpreters (compiled, never run)."""
    for text in _readings(source):
        try:
            with _ONE_AT_A_TIME:
                compile(text, filename, "exec", dont_inherit=True)
            return True
        except (SyntaxError, ValueError):
            continue
    return False


def _readings(source):
    """The source itself, then (made only when asked for: the source did not parse) its 3.12 type parameters
    blanked, when it has any."""
    yield source
    blanked = blank_type_parameters(source)
    if blanked is not None:
        yield blanked


def blank_type_parameters(source: str | bytes) -> str | None:
    """``source`` with 3.12's type parameter lists blanked (each character a space) and ``type X = ...`` read as
    ``X      = ...`` (the name moved to where the keyword began, so the statement keeps its indentation); None
    when there is nothing to blank or the text cannot be tokenized."""
    import io
    import tokenize

    if isinstance(source, bytes):
        try:
            source = source.decode("utf-8")
        except UnicodeDecodeError:
            return None
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError):
        return None
    lines = source.splitlines(keepends=True)
    spans = _type_parameter_spans(tokens)
    if not spans:
        return None
    for ((row, start), (end_row, end)), text in spans:
        if end_row != row:
            return None  # a list over several lines: blanking it would leave the line open
        line = lines[row - 1]
        lines[row - 1] = line[:start] + text.ljust(end - start) + line[end:]
    return "".join(lines)


def _type_parameter_spans(tokens) -> list:
    """((start, end), replacement) of each ``[...]`` right after ``class NAME`` or ``def NAME`` (blanked), and
    of each ``type NAME`` that opens a statement ``type NAME ... =`` (the name alone)."""
    import token

    spans = []
    for i, tok in enumerate(tokens[:-2]):
        after, then = tokens[i + 1], tokens[i + 2]
        if tok.type == token.NAME and tok.string in ("class", "def") and after.type == token.NAME \
                and then.string == "[":
            close = _closing(tokens, i + 2)
            if close is None:
                return []
            spans.append(((then.start, tokens[close].end), ""))
        elif tok.type == token.NAME and tok.string == "type" and after.type == token.NAME \
                and then.string in ("=", "[") and _opens_statement(tokens, i):
            spans.append(((tok.start, after.end), after.string))
            if then.string == "[":
                close = _closing(tokens, i + 2)
                if close is None:
                    return []
                spans.append(((then.start, tokens[close].end), ""))
    return spans


def _closing(tokens, opening: int):
    depth = 0
    for j in range(opening, len(tokens)):
        if tokens[j].string in ("[", "(", "{"):
            depth += 1
        elif tokens[j].string in ("]", ")", "}"):
            depth -= 1
            if depth == 0:
                return j
    return None


def _opens_statement(tokens, i: int) -> bool:
    import token

    before = next((t for t in reversed(tokens[:i]) if t.type not in (token.NL, token.COMMENT)), None)
    return before is None or before.type in (token.NEWLINE, token.INDENT, token.DEDENT) or before.string == ";"


@contextlib.contextmanager
def exclusive():
    """Hold the parse lock around code that may build ``ast`` objects itself, out of :func:`parse`'s sight."""
    with _ONE_AT_A_TIME:
        yield
