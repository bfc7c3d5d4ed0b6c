"""The source of the failing tests, cut out of the test files with ``ast`` for the prompt.

For ``tests/test_x.py::TestA::test_b[case]`` the prompt shows ``class TestA``'s header and the method
``test_b`` with its decorators (so ``@pytest.mark.parametrize`` tables come along); parametrised ids of one
test function yield it once. Code is copied verbatim from the file (indentation kept), in file order; a
test that cannot be found (inherited, generated) is named as such instead.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from bench import pyast


@dataclass(frozen=True)
class FailingTestRef:
    file: str
    chain: tuple[str, ...]  # enclosing class names, then the function name


@dataclass(frozen=True)
class _Found:
    start: int  # 0-based first line of the function (its first decorator)
    classes: tuple[tuple[str, str], ...]  # (class name, header text) from the outside in
    text: str


def parse_test_id(test_id: str) -> FailingTestRef | None:
    """``"tests/t.py::TestA::test_b[x::y]"`` -> FailingTestRef("tests/t.py", ("TestA", "test_b")); None for
    an id that names no function (a whole file)."""
    file, sep, rest = test_id.partition("::")
    if not sep or not rest:
        return None
    rest = rest.split("[", 1)[0]  # the parameter id may contain anything, '::' included
    chain = tuple(part for part in rest.split("::") if part)
    return FailingTestRef(file, chain) if chain else None


def group_by_file(test_ids: tuple[str, ...]) -> dict[str, list[FailingTestRef]]:
    """Test refs per file, deduplicated, files in order of first appearance."""
    grouped: dict[str, list[FailingTestRef]] = {}
    for test_id in test_ids:
        ref = parse_test_id(test_id)
        if ref is None:
            continue
        refs = grouped.setdefault(ref.file, [])
        if ref not in refs:
            refs.append(ref)
    return grouped


def extract(source: str, refs: list[FailingTestRef]) -> str:
    """The test functions of ``refs`` from one file's ``source``, with their class headers."""
    try:
        tree = pyast.parse(source)
    except SyntaxError as exc:
        return f"# (this file does not parse: {exc.msg} at line {exc.lineno})\n"
    lines = source.splitlines(keepends=True)
    found: list[_Found] = []
    missing: list[str] = []
    for ref in refs:
        hit = _find(tree, ref.chain, lines)
        if hit is None:
            missing.append("::".join(ref.chain))
        elif hit not in found:
            found.append(hit)
    return _render(sorted(found, key=lambda f: f.start), missing)


def _find(tree: ast.Module, chain: tuple[str, ...], lines: list[str]) -> _Found | None:
    body: list[ast.stmt] = tree.body
    classes: list[tuple[str, str]] = []
    for name in chain[:-1]:
        cls = _last(body, name, (ast.ClassDef,))
        if cls is None:
            return None
        classes.append((name, _class_header(cls, lines)))
        body = cls.body
    func = _last(body, chain[-1], (ast.FunctionDef, ast.AsyncFunctionDef))
    if func is None:
        return None
    start = _first_line(func)
    text = "".join(lines[start : func.end_lineno])
    return _Found(start, tuple(classes), text)


def _last(body: list[ast.stmt], name: str, kinds: tuple[type, ...]) -> ast.AST | None:
    """The definition Python would keep: the last one of that name."""
    hits = [node for node in body if isinstance(node, kinds) and node.name == name]  # type: ignore[attr-defined]
    return hits[-1] if hits else None


def _first_line(node: ast.AST) -> int:
    decorators = getattr(node, "decorator_list", [])
    return min([node.lineno] + [d.lineno for d in decorators]) - 1  # type: ignore[attr-defined]


def _class_header(cls: ast.ClassDef, lines: list[str]) -> str:
    """Decorators and the ``class X(...):`` line(s), up to the first statement of the body."""
    start = _first_line(cls)
    end = max(_first_line(cls.body[0]), cls.lineno)
    header = lines[start:end]
    while header and not header[-1].strip():
        header.pop()
    if not header:
        header = [lines[cls.lineno - 1]]
    return "".join(header)


def _render(found: list[_Found], missing: list[str]) -> str:
    out: list[str] = []
    open_classes: tuple[tuple[str, str], ...] = ()
    for item in found:
        shared = 0
        limit = min(len(open_classes), len(item.classes))
        while shared < limit and open_classes[shared] == item.classes[shared]:
            shared += 1
        if out:
            out.append("\n")
        out.extend(_ended(header) for _, header in item.classes[shared:])
        out.append(_ended(item.text))
        open_classes = item.classes
    for name in missing:
        if out:
            out.append("\n")
        out.append(f"# {name}: not defined in this file (inherited or generated)\n")
    return "".join(out)


def _ended(text: str) -> str:
    return text if text.endswith("\n") else text + "\n"
