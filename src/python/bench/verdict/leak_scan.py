"""Is the answer anywhere a scored run can read it? Every file visible in the sandbox, searched for the original.

A scored run sees the image's /usr and /etc, the task's venvs and overlay, and the work dir, less what
:mod:`bench.verdict.masks` covers. This walks exactly that set on the host (mask by mask, never following a
link) and searches every regular file, and every member of every zip or wheel among them, for *needles*:
byte strings that would hand a model the answer. For a mutation task they are the released module's bytes
and the released text of the mutated function when it is at least ``MIN_FUNCTION_NEEDLE`` bytes (the span
alone is often a few common characters; a shorter function is an idiom the standard library shares); for a PR
task, the fix commit's version of each source file the fix changed.
"""

from __future__ import annotations

import ast
import os
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator, Mapping, Sequence

from bench import pyast
from bench.sandbox.protocol import Mount

MAX_FILE_BYTES = 64 << 20
# A function shorter than this is an idiom (`def __len__(self): return len(self.data)`) that the standard
# library spells the same way; finding it there tells nothing about the task.
MIN_FUNCTION_NEEDLE = 160
ZIP_SUFFIXES = (".zip", ".whl", ".egg", ".pyz")


@dataclass(frozen=True)
class Leak:
    needle: str  # which needle (e.g. "mutation.idna.3.10.x: released core.py")
    where: str  # sandbox path, with "!member" for a zip member


def environment_roots(mounts: Sequence[Mount], image_root: Path) -> tuple[tuple[str, str], ...]:
    """(host root, sandbox root) of everything a run mounts besides its work dir (bound at /work)."""
    roots = [(str(image_root / "usr"), "/usr"), (str(image_root / "etc"), "/etc")]
    roots += [(str(m.host_path), m.sandbox_path) for m in mounts if not m.mask]
    return tuple(roots)


def scan(roots: Iterable[tuple[str, str]], masked: Iterable[str], needles: Mapping[str, bytes]) -> tuple[Leak, ...]:
    """Every (needle, place) found in the visible files; ``masked`` are sandbox paths hidden by masks."""
    hidden = tuple(sorted(set(masked)))
    found: list[Leak] = []
    for host_root, sandbox_root in roots:
        for host, sandbox in _files(host_root, sandbox_root, hidden):
            found += _search(host, sandbox, needles)
    return tuple(sorted(set(found), key=lambda leak: (leak.needle, leak.where)))


def mutation_needles(task_id: str, released: bytes, start: int, end: int, name: str) -> dict[str, bytes]:
    """The released module and the released text of the function around the mutated span."""
    needles = {f"{task_id}: released {name}": released}
    function = enclosing_function(released, start, end)
    if len(function) >= MIN_FUNCTION_NEEDLE:
        needles[f"{task_id}: released function"] = function
    return needles


def enclosing_function(source: bytes, start: int, end: int) -> bytes:
    """The innermost function (or, failing that, class) whose source holds the byte span [start, end)."""
    try:
        tree = pyast.parse(source)
    except (SyntaxError, ValueError):
        return b""
    lines = source.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    best = b""
    for node in ast.walk(tree):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        first, last = offsets[node.lineno - 1], offsets[node.end_lineno]
        if first <= start and end <= last and (not best or last - first < len(best)):
            best = source[first:last]
    return best


def _files(host_root: str, sandbox_root: str, hidden: tuple[str, ...]) -> Iterator[tuple[str, str]]:
    if not os.path.isdir(host_root):
        return
    for parent, dirs, files in os.walk(host_root, followlinks=False):
        sandbox_parent = sandbox_root + parent[len(host_root):]
        dirs[:] = [d for d in dirs if not _is_hidden(f"{sandbox_parent}/{d}", hidden)]
        for name in files:
            sandbox = f"{sandbox_parent}/{name}"
            host = os.path.join(parent, name)
            if not _is_hidden(sandbox, hidden) and os.path.isfile(host) and not os.path.islink(host):
                yield host, sandbox


def _is_hidden(sandbox: str, hidden: tuple[str, ...]) -> bool:
    return any(sandbox == h or sandbox.startswith(h + "/") for h in hidden)


def _search(host: str, sandbox: str, needles: Mapping[str, bytes]) -> list[Leak]:
    try:
        if os.path.getsize(host) > MAX_FILE_BYTES:
            return [Leak("<too large to search>", sandbox)]
        with open(host, "rb") as handle:
            data = handle.read()
    except OSError:
        return []
    found = [Leak(name, sandbox) for name, needle in needles.items() if needle in data]
    if host.endswith(ZIP_SUFFIXES) or data[:4] == b"PK\x03\x04":
        found += _search_zip(host, sandbox, needles)
    return found


def _search_zip(host: str, sandbox: str, needles: Mapping[str, bytes]) -> list[Leak]:
    found = []
    try:
        with zipfile.ZipFile(host) as archive:
            for info in archive.infolist():
                if info.is_dir() or info.file_size > MAX_FILE_BYTES:
                    continue
                data = archive.read(info)
                found += [Leak(name, f"{sandbox}!{info.filename}") for name, needle in needles.items()
                          if needle in data]
    except (zipfile.BadZipFile, OSError, RuntimeError, NotImplementedError):
        pass
    return found
