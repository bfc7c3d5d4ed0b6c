"""Whole-function replacement: an edit format small models can produce (``--edit-format function``).

The reply holds, for each file it changes, the path on a line of its own and then a fenced Python block with
the new full text of one or more functions or classes::

    src/pkg/mod.py
    ```python
    @cache
    def area(width, height):
        return width * height
    ```

Each definition at the top of a block replaces the definition of the same name in that file, found by the
file's AST: a module-level function or class first, else the only function of that name anywhere in the file
(a method, a nested function). Decorators go with it: the replaced span runs from the first decorator to the
last line of the body, and the new text takes over the indentation of the one it replaces, so a method may be
written at column 0. Nothing but the named definitions changes.

The parser turns each replacement into a SEARCH/REPLACE :class:`~bench.attempt.edits.Edit` (the old span's
exact text and the new one), so applying is :func:`bench.attempt.edits.apply_edits`: all or nothing, only the
task's editable files, the same limits. Reasons (``EditError.reason``) besides those of applying:
``reply_too_large``, ``too_many_blocks``, ``no_edits`` (no block, or a block without a definition),
``unparsable`` (a block that is not valid Python, or a path the file cannot be read from), ``definition_not_found``,
``definition_ambiguous`` (several functions of that name and none at module level).
"""

from __future__ import annotations

import ast
import re
import textwrap
from typing import Callable

from bench import pyast
from bench.attempt.code_map import first_line
from bench.attempt.edits import MAX_BLOCKS, MAX_REPLY_BYTES, Edit
from bench.errors import EditError

_FENCE_OPEN = re.compile(r"^[ \t]*(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^`]*?)[ \t]*$")
_PATHLIKE = re.compile(r"^[\w.+@-][\w./+@-]*\.pyi?$")
_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)

SYSTEM_PROMPT = """\
You are an expert Python developer fixing a bug in a repository.

You are shown the current content of the files you may edit and the tests that fail. Change the editable \
files so that the failing tests pass without breaking other behaviour. You cannot run anything: reply with \
edits only.

Reply with the new full text of each function or class you change: the file's path on a line of its own, \
then a ```python block holding the complete new definition (with its decorators), for example:

path/to/file.py
```python
def name(arguments):
    new body
```

Rules:
- Each definition replaces the one with the same name in that file; write it whole, not only the changed lines.
- A method may be written on its own, without its class; it keeps its place and indentation in the class.
- Several definitions may share one block; several blocks may follow one another.
- Test files cannot be edited.
- Text outside the blocks is ignored.
"""

FEEDBACK_REQUEST = "Reply with the full new text of each function or class you change, as before.\n"


def parse_function_edits(text: str, current: Callable[[str], str | None], *,
                         max_reply_bytes: int | None = MAX_REPLY_BYTES,
                         max_blocks: int | None = MAX_BLOCKS) -> tuple[Edit, ...]:
    """SEARCH/REPLACE edits equivalent to the reply's definitions; ``current(path)`` reads a file's text as it
    is now (None: no such file)."""
    if max_reply_bytes is not None and len(text.encode("utf-8", "surrogatepass")) > max_reply_bytes:
        raise EditError(f"the reply is more than the {max_reply_bytes} bytes a reply may have",
                        reason="reply_too_large")
    edits: list[Edit] = []
    for path, code, line in _blocks(text):
        for node, new_text in _definitions(code, path, line):
            if max_blocks is not None and len(edits) >= max_blocks:
                raise EditError(f"more than {max_blocks} definitions in one reply", reason="too_many_blocks")
            edits.append(_replacement(path, current(path), node, new_text))
    if not edits:
        raise EditError("the reply contains no file path followed by a ```python block with a definition",
                        reason="no_edits")
    return tuple(edits)


def _blocks(text: str):
    """(path, code, line number) of each fenced block whose path stands on the line above or in its info."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    index = 0
    while index < len(lines):
        opened = _FENCE_OPEN.match(lines[index])
        if not opened:
            index += 1
            continue
        fence, info = opened.group("fence"), opened.group("info").split()
        path = next((word for word in info if _PATHLIKE.match(word)), "") or _path_above(lines, index)
        end = next((i for i in range(index + 1, len(lines)) if lines[i].strip() == fence), len(lines))
        if path:
            yield path.strip("`*'\""), "\n".join(lines[index + 1:end]) + "\n", index + 1
        index = end + 1


def _path_above(lines: list[str], index: int) -> str:
    for back in range(index - 1, max(-1, index - 3), -1):
        candidate = lines[back].strip().strip("`*#:'\" ").removeprefix("File ").strip()
        if candidate:
            return candidate if _PATHLIKE.match(candidate) else ""
    return ""


def _definitions(code: str, path: str, line: int) -> list[tuple[ast.AST, str]]:
    source = textwrap.dedent(code)
    try:
        tree = pyast.parse(source)
    except SyntaxError as exc:
        raise EditError(f"the block for {path} (reply line {line}) is not valid Python: {exc.msg} "
                        f"(line {exc.lineno})", reason="unparsable") from None
    lines = source.splitlines(keepends=True)
    found = [(node, "".join(lines[first_line(node) - 1:node.end_lineno])) for node in tree.body
             if isinstance(node, _DEFINITIONS)]
    if not found:
        raise EditError(f"the block for {path} (reply line {line}) defines no function or class", reason="no_edits")
    return found


def _replacement(path: str, text: str | None, node: ast.AST, new_text: str) -> Edit:
    if text is None:
        raise EditError(f"{path}: no such file to replace {node.name} in", reason="definition_not_found")
    try:
        tree = pyast.parse(text)
    except SyntaxError:
        raise EditError(f"{path} does not parse as it stands, so {node.name} cannot be found in it",
                        reason="unparsable") from None
    target = _target(tree, node, path)
    lines = text.splitlines(keepends=True)
    old = "".join(lines[first_line(target) - 1:target.end_lineno])
    indent = old[: len(old) - len(old.lstrip(" \t"))]
    new = textwrap.indent(textwrap.dedent(new_text), indent, lambda line: line.strip() != "")
    if old.endswith("\n") and not new.endswith("\n"):
        new += "\n"
    return Edit(path, old, new)


def _target(tree: ast.Module, node: ast.AST, path: str) -> ast.AST:
    kinds = (ast.ClassDef,) if isinstance(node, ast.ClassDef) else (ast.FunctionDef, ast.AsyncFunctionDef)
    top = [n for n in tree.body if isinstance(n, kinds) and n.name == node.name]
    if top:
        return top[-1]  # a later definition at module level is the one in force
    anywhere = [n for n in ast.walk(tree) if isinstance(n, kinds) and n.name == node.name]
    if not anywhere:
        raise EditError(f"{path} has no {_what(node)} named {node.name}", reason="definition_not_found")
    if len(anywhere) > 1:
        raise EditError(f"{path} has {len(anywhere)} {_what(node)}s named {node.name} and none at module level: "
                        "send the enclosing class or function whole", reason="definition_ambiguous")
    return anywhere[0]


def _what(node: ast.AST) -> str:
    return "class" if isinstance(node, ast.ClassDef) else "function"
