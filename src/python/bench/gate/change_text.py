"""What the text of a change's source and tests names: the names a module defines, the names and messages a
change introduces, a test function's own source by its id, and whether a test uses a name or quotes a message.
Read by :mod:`bench.gate.judgement` and the shape modules beside it; nothing runs."""

from __future__ import annotations

import ast
import re

from bench.gate.change_shapes import parse_or_none as _parse

MIN_MESSAGE_CHARS = 15


def defined_names(text: str) -> set[str]:
    """Module-level functions, classes and assigned names, and the methods and attributes classes define."""
    tree = _parse(text)
    if tree is None:
        return set()
    names: set[str] = set()
    for node in tree.body:
        names |= _bound_by(node)
        if isinstance(node, ast.ClassDef):
            for member in node.body:
                names |= _bound_by(member)
    for node in ast.walk(tree):  # instance attributes: self.x = ...
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) and isinstance(node.value, ast.Name) \
                and node.value.id == "self":
            names.add(node.attr)
    return names


def _bound_by(node: ast.AST) -> set[str]:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {node.name}
    targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
    return {t.id for target in targets for t in ast.walk(target) if isinstance(t, ast.Name)}


def introduced_names(before: tuple[tuple[str, str], ...], after: tuple[tuple[str, str], ...]) -> tuple[set, set]:
    """(public, private) names the change defines in the source files that none of them defined before."""
    old = set().union(*(defined_names(text) for _, text in before)) if before else set()
    new = set().union(*(defined_names(text) for _, text in after)) if after else set()
    added = {name for name in new - old if len(name) > 2 and not name.startswith("__")}
    return {n for n in added if not n.startswith("_")}, {n for n in added if n.startswith("_")}


def introduced_messages(before: tuple[tuple[str, str], ...], after: tuple[tuple[str, str], ...]) -> set[str]:
    """String literals (long enough to be a message) in the source after the change and nowhere before."""
    def literals(pairs) -> set[str]:
        found = set()
        for _, text in pairs:
            tree = _parse(text)
            for node in ast.walk(tree) if tree is not None else ():
                if isinstance(node, ast.Constant) and isinstance(node.value, str):
                    found.update(part for part in re.split(r"\{[^}]*\}|%[sdr]", node.value)
                                 if len(part.strip()) >= MIN_MESSAGE_CHARS)
        return found

    return literals(after) - literals(before)


_REGEX_EDGES = re.compile(r"^(\^|\.\*|\\A)+|(\$|\.\*|\\Z)+$")


_REGEX_CALLS = frozenset({"assertRaisesRegex", "assertRaisesRegexp", "assertWarnsRegex", "assertRegex",
                          "assertRegexpMatches"})


def quotes_a_message(body: str, messages: set[str]) -> bool:
    """The test quotes one of ``messages``: verbatim, or as the core of a pattern it matches against
    (``match=".*should be str.*"``, ``assertRaisesRegex``, or a literal with regex anchors at its ends)."""
    if not messages or not body:
        return False
    if any(message in body for message in messages):
        return True
    tree = _parse(body)
    cores = {re.sub(r"\\(.)", r"\1", _REGEX_EDGES.sub("", pattern)) for pattern in _patterns(tree)} if tree else set()
    return any(len(core) >= MIN_MESSAGE_CHARS and core in message for core in cores for message in messages)


def _patterns(tree: ast.AST) -> set[str]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg == "match":
            found |= _strings(node.value)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _REGEX_CALLS:
            found |= {text for arg in node.args[1:2] for text in _strings(arg)}
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and _REGEX_EDGES.search(node.value):
            found.add(node.value)
    return found


def _strings(node: ast.AST) -> set[str]:
    return {n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)}


def test_functions(tests: tuple[tuple[str, str], ...], test_ids: tuple[str, ...]) -> dict[str, str]:
    """test id -> the source of its test function with its decorators (a parametrized test's cases are part of
    what it asserts), or of its class when the id names a class."""
    sources = dict(tests)
    parsed: dict[str, tuple[ast.Module | None, list[str]]] = {}
    bodies = {}
    for test_id in test_ids:
        path, _, rest = test_id.partition("::")
        names = [part.split("[", 1)[0] for part in rest.split("::")]
        if path not in parsed:  # one parse per file, however many of its tests are asked for
            text = sources.get(path, "")
            parsed[path] = (_parse(text), text.splitlines(keepends=True))
        tree, lines = parsed[path]
        node = _find(tree, names) if tree is not None else None
        if node is not None:  # the node's own text, as ast.get_source_segment gives it (offsets count bytes)
            first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", ())])
            segment = [line.encode("utf-8") for line in lines[first - 1 : node.end_lineno]]
            if first == node.end_lineno:
                segment = [segment[0][node.col_offset : node.end_col_offset]]
            else:  # the decorators and the def line lose their indentation, so the text parses on its own
                header = node.lineno - first + 1
                segment = [_unindent(line, node.col_offset) for line in segment[:header]] + segment[header:]
                segment[-1] = segment[-1][: node.end_col_offset]
            bodies[test_id] = b"".join(segment).decode("utf-8", "replace")
    return bodies


def _unindent(line: bytes, width: int) -> bytes:
    return line if line[:width].strip() else line[width:]


def _find(tree: ast.AST, names: list[str]) -> ast.AST | None:
    scope: ast.AST | None = tree
    for name in names:
        body = getattr(scope, "body", [])
        scope = next((n for n in body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                      and n.name == name), None)
        if scope is None:
            return None
    return scope


def uses(body: str, names: set[str]) -> bool:
    if not names or not body:
        return False
    tree = _parse(body)
    if tree is None:
        return False
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} | \
        {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)} | \
        {n.arg for n in ast.walk(tree) if isinstance(n, ast.keyword) and n.arg}
    return bool(used & names)
