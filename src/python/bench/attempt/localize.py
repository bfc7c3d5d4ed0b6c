"""Which definitions of the editable files the failing tests reach — read only from what a model could see.

Inputs are the base tree's editable files, the failing tests' source and the output of the failing tests at
base (their tracebacks); never the fix. Each definition found gets a rank, and the prompt shows lower ranks
first (:mod:`bench.attempt.context`):

0. a frame of a base traceback lies in it (innermost frames first, failures in order);
1. the failing tests use its name and the test file imports that name from the task's package;
2. the failing tests use its name (a call, an attribute, a class) anywhere;
3. a definition of rank ≤ 2 uses its name (one call away); 4. two calls away.

A class reached by name brings its own statements and ``__init__`` at the same rank. Within a rank,
definitions keep the order in which they were found, then file order: the same inputs give the same ranking.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from bench import pyast
from bench.attempt.code_map import IDENTIFIER, CodeMap, Definition
from bench.spec.model import editable_matches

_PYTEST_FRAME = re.compile(r"^(?P<path>[^\s:\"']+\.py):(?P<line>\d+):", re.M)
_PYTHON_FRAME = re.compile(r'File "(?P<path>[^"]+\.py)", line (?P<line>\d+)')
RANK_REASONS = ("traceback", "imported by the tests", "named in the tests", "called by reached code",
                "two calls away")


@dataclass(frozen=True)
class Reached:
    path: str
    qualname: str
    rank: int

    @property
    def reason(self) -> str:
        return RANK_REASONS[self.rank]


def traceback_lines(texts, source_files: tuple[str, ...]) -> tuple[tuple[str, int], ...]:
    """(editable file, line) of every traceback frame in ``texts``, innermost first within each text."""
    found: list[tuple[str, int]] = []
    for text in texts:
        frames = [(m.start(), m.group("path"), int(m.group("line")))
                  for pattern in (_PYTEST_FRAME, _PYTHON_FRAME) for m in pattern.finditer(text or "")]
        for _, path, line in sorted(frames, reverse=True):
            editable = next(iter(editable_matches(path, source_files)), None)
            if editable is not None and (editable, line) not in found:
                found.append((editable, line))
    return tuple(found)


def imported_names(test_source: str, packages: frozenset[str]) -> frozenset[str]:
    """Names a test file imports from the task's own packages (``from pkg.mod import a, b as c`` -> a, b)."""
    try:
        tree = pyast.parse(test_source)
    except (SyntaxError, ValueError):
        return frozenset()
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] in packages:
            names.update(alias.name for alias in node.names)
    return frozenset(names)


def localize(maps: dict[str, CodeMap], *, failing_source: str, test_imports: frozenset[str],
             failure_texts: tuple[str, ...]) -> tuple[Reached, ...]:
    """Rank the definitions of ``maps`` (editable path -> its code map) the failing tests reach."""
    ranked: dict[tuple[str, str], int] = {}
    order: list[tuple[str, str]] = []

    def reach(path: str, definition: Definition, rank: int) -> None:
        key = (path, definition.qualname)
        if key not in ranked:
            order.append(key)
            ranked[key] = rank
        elif rank < ranked[key]:
            ranked[key] = rank
        if definition.kind == "class":
            for member in maps[path].named(definition.qualname + ".__init__"):
                reach(path, member, rank)

    for path, line in traceback_lines(failure_texts, tuple(maps)):
        definition = maps[path].enclosing(line)
        if definition is not None:
            reach(path, definition, 0)
    index = _by_name(maps)
    for name in sorted(_identifiers(failing_source), key=lambda n: n not in test_imports):  # stable: first use
        for path, definition in index.get(name, ()):
            reach(path, definition, 1 if name in test_imports else 2)
    for hop_rank in (3, 4):
        callers = [key for key, rank in ranked.items() if rank < hop_rank]
        for path, qualname in callers:
            caller = next(d for d in maps[path].definitions if d.qualname == qualname)
            for name in sorted(caller.body_names):
                for other_path, definition in index.get(name, ()):
                    if (other_path, definition.qualname) != (path, qualname):
                        reach(other_path, definition, hop_rank)
    by_rank = sorted(range(len(order)), key=lambda i: (ranked[order[i]], i))
    return tuple(Reached(order[i][0], order[i][1], ranked[order[i]]) for i in by_rank)


def _by_name(maps: dict[str, CodeMap]) -> dict[str, list[tuple[str, Definition]]]:
    index: dict[str, list[tuple[str, Definition]]] = {}
    for path, code in maps.items():
        for definition in code.definitions:
            index.setdefault(definition.name, []).append((path, definition))
    return index


def _identifiers(text: str) -> tuple[str, ...]:
    """Identifiers in order of first use."""
    return tuple(dict.fromkeys(IDENTIFIER.findall(text)))
