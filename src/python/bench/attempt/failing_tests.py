"""The source of the failing tests, cut out of the test files with ``ast`` for the prompt.

For ``tests/test_x.py::TestA::test_b[case]`` the prompt shows ``class TestA``'s header and the method
``test_b`` with its decorators (so ``@pytest.mark.parametrize`` tables come along); parametrised ids of one
test function yield it once. Code is copied verbatim from the file (indentation kept), in file order. A
method the named class does not define itself is looked up where a test runner would find it in the same file:
along the class's bases (inherited), else as the one method of that name in a class built inside a function
(a generated test class: ``_make_parser_test(LEXER, PARSER)`` returning ``class _TestParser``), shown with a
line saying so; a test that still cannot be found is named as such instead.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, replace

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
    note: str = ""  # where a test found away from its own class comes from


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
        hit = _find(tree, ref.chain, lines) or _find_elsewhere(tree, ref.chain, lines)
        same = next((i for i, f in enumerate(found) if f.start == hit.start), None) if hit else None
        if hit is None:
            missing.append("::".join(ref.chain))
        elif same is None:
            found.append(hit)
        elif hit.note and hit.note not in found[same].note:  # one method collected under several names
            found[same] = replace(found[same], note=f"{found[same].note}\n{hit.note}".lstrip("\n"))
    return _render(sorted(found, key=lambda f: f.start), missing)


def _find(tree: ast.Module, chain: tuple[str, ...], lines: list[str]) -> _Found | None:
    classes = _classes_along(tree.body, chain[:-1])
    if classes is None:
        return None
    func = _last(classes[-1].body if classes else tree.body, chain[-1], (ast.FunctionDef, ast.AsyncFunctionDef))
    if func is None:
        return None
    start = _first_line(func)
    text = "".join(lines[start : func.end_lineno])
    return _Found(start, tuple((cls.name, _class_header(cls, lines)) for cls in classes), text)


def _find_elsewhere(tree: ast.Module, chain: tuple[str, ...], lines: list[str]) -> _Found | None:
    """A method its test class does not define itself: inherited from a base class of the file, or defined in
    the one class built inside a function whose methods the runner collects under a generated name."""
    if len(chain) < 2:
        return None
    name, label = chain[-1], "::".join(chain)
    owners = _classes_along(tree.body, chain[:-1])
    if owners:
        for base in _bases_in_file(tree, owners[-1]):
            func = _last(base.body, name, (ast.FunctionDef, ast.AsyncFunctionDef))
            if func is not None:
                return _found(func, base, lines, f"# {label}: inherited from {base.name}")
    built = [(cls, func) for outer in tree.body if isinstance(outer, (ast.FunctionDef, ast.AsyncFunctionDef))
             for cls in ast.walk(outer) if isinstance(cls, ast.ClassDef)
             for func in [_last(cls.body, name, (ast.FunctionDef, ast.AsyncFunctionDef))] if func is not None]
    if len({id(cls) for cls, _ in built}) != 1:
        return None  # none, or several generated classes could hold it: naming one would be a guess
    cls, func = built[-1]
    return _found(func, cls, lines, f"# {label}: generated from class {cls.name}, built in a function of this file")


def _classes_along(body: list[ast.stmt], names: tuple[str, ...]) -> list[ast.ClassDef] | None:
    """The classes ``names`` walks through, each inside the one before; None where one is not defined."""
    classes: list[ast.ClassDef] = []
    for name in names:
        cls = _last(body, name, (ast.ClassDef,))
        if cls is None:
            return None
        classes.append(cls)  # type: ignore[arg-type]
        body = cls.body  # type: ignore[attr-defined]
    return classes


def _bases_in_file(tree: ast.Module, cls: ast.ClassDef) -> list[ast.ClassDef]:
    """The module-level classes ``cls`` inherits from, nearest first (breadth first, each once)."""
    seen: list[ast.ClassDef] = []
    pending = [cls]
    while pending:
        current = pending.pop(0)
        for base in current.bases:
            found = _last(tree.body, base.id, (ast.ClassDef,)) if isinstance(base, ast.Name) else None
            if found is not None and found is not cls and found not in seen:
                seen.append(found)  # type: ignore[arg-type]
                pending.append(found)  # type: ignore[arg-type]
    return seen


def _found(func: ast.AST, cls: ast.ClassDef, lines: list[str], note: str) -> _Found:
    start = _first_line(func)
    return _Found(start, ((cls.name, _class_header(cls, lines)),),
                  "".join(lines[start : func.end_lineno]), note)  # type: ignore[attr-defined]


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
        if item.note:
            out.append(item.note + "\n")
            shared = 0  # the note stands between the class header and the method: repeat the header after it
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
