"""``--context retrieval``: the repository's code at base ranked by BM25 against the failing tests.

The corpus is every Python file of the base tree outside the tests (test files of the task, ``test*``/
``conftest`` files and ``test``/``tests``/``testing`` folders), cut into the blocks of
:mod:`bench.attempt.code_map` (a function or method, a class's own statements, a module's own code). The query
is the failing tests' source and their output at base. Ranking is Okapi BM25 as the maintained ``bm25s``
library computes it, over identifier words (``parseDate`` and ``parse_date`` both give ``parse`` and
``date``); ties keep file order, so the ranking is a pure function of the base tree and the tests.
"""

from __future__ import annotations

import keyword
import re
from dataclasses import dataclass
from pathlib import Path

from bench.attempt.code_map import IDENTIFIER, Range, map_code

MAX_FILES = 3000
MAX_FILE_BYTES = 1_000_000
_SKIP_DIRS = {"test", "tests", "testing", ".git", ".tox", ".nox", "node_modules", "__pycache__", "build", "dist",
              ".venv", "venv", "site-packages"}
# an acronym before a capitalised word (HTTP|Server), a word (get, Server), an acronym at the end (URL), digits
_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z0-9]+|[A-Z]+|[0-9]+")
_STOP = frozenset(keyword.kwlist) | {"self", "cls", "none", "true", "false"}


@dataclass(frozen=True)
class Chunk:
    path: str
    qualname: str  # "" for a module's own code
    ranges: tuple[Range, ...]


def corpus_files(root: Path, test_files: tuple[str, ...]) -> tuple[str, ...]:
    """The base tree's Python files outside the tests, sorted; at most MAX_FILES."""
    skip = set(test_files)
    found = []
    for path in sorted(root.rglob("*.py")):
        relative = path.relative_to(root).as_posix()
        parts = relative.split("/")
        if relative in skip or any(p in _SKIP_DIRS or p.startswith(".") for p in parts[:-1]):
            continue
        name = parts[-1]
        if name.startswith("test") or name.endswith("_test.py") or name == "conftest.py":
            continue
        if path.is_symlink() or not path.is_file() or path.stat().st_size > MAX_FILE_BYTES:
            continue
        found.append(relative)
        if len(found) >= MAX_FILES:
            break
    return tuple(found)


def chunks_of(path: str, source: str) -> tuple[Chunk, ...]:
    code = map_code(path, source)
    if code is None:
        return (Chunk(path, "", ((1, max(1, len(source.splitlines()))),)),)
    out = [Chunk(path, "", code.module_code)] if code.module_code else []
    out += [Chunk(path, d.qualname, d.own) for d in code.definitions]
    return tuple(out)


def words(text: str) -> list[str]:
    """Lower-case words of every identifier: the identifier itself and its camelCase / snake_case parts."""
    out = []
    for identifier in IDENTIFIER.findall(text):
        lowered = identifier.lower()
        if lowered in _STOP:
            continue
        parts = [w.lower() for w in _WORD.findall(identifier)]
        out.extend(sorted({lowered, *parts}))
    return [w for w in out if len(w) > 1]


def rank(chunks: tuple[Chunk, ...], texts: tuple[str, ...], query: str, *,
         unmatched: bool = False) -> tuple[Chunk, ...]:
    """``chunks`` (with their ``texts``) best first; chunks that share no word with the query are left out, or
    with ``unmatched`` follow in file order (localization's last blocks: the rest of the editable files)."""
    import bm25s  # lazy: numpy comes with it

    tokens = [words(text) or ["\x00empty"] for text in texts]
    query_words = sorted(set(words(query)))
    vocabulary = set().union(*map(set, tokens))
    known = [w for w in query_words if w in vocabulary]
    if not chunks or not known:
        return tuple(chunks) if unmatched else ()
    retriever = bm25s.BM25()
    retriever.index(tokens, show_progress=False)
    scores = retriever.get_scores(known)
    order = sorted(range(len(chunks)), key=lambda i: (-round(float(scores[i]), 9), i))
    return tuple(chunks[i] for i in order if unmatched or scores[i] > 0)
