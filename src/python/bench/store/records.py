"""Append-only JSONL result files that survive crashes.

Each record is one line written with a single ``write`` on a descriptor opened with O_APPEND while holding an
exclusive lock, then fsync'd. A crash can leave at most one partial last line; readers ignore it and
:func:`open_for_append` cuts it off before the run resumes, so no record is lost or duplicated.
"""

from __future__ import annotations

import fcntl
import json
import os
import threading
from pathlib import Path
from typing import Any, Iterator, Mapping

from bench.store.canonical import canonical_json

_LOCK = threading.Lock()


def read_records(path: Path) -> list[dict[str, Any]]:
    return list(iter_records(path))


def iter_records(path: Path) -> Iterator[dict[str, Any]]:
    if not path.exists():
        return
    data = path.read_bytes()
    complete = data[: data.rfind(b"\n") + 1]  # a trailing partial line is a crash remnant
    for line in complete.splitlines():
        if line.strip():
            yield json.loads(line)


def cut_partial_tail(path: Path) -> int:
    """Remove a partial last line left by a crash; returns the number of bytes removed."""
    if not path.exists():
        return 0
    with open(path, "r+b") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        data = handle.read()
        keep = data.rfind(b"\n") + 1
        if keep < len(data):
            handle.truncate(keep)
            handle.flush()
            os.fsync(handle.fileno())
        return len(data) - keep


class RecordWriter:
    """Appends records to one JSONL file; safe across threads of one process and across processes."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        cut_partial_tail(path)
        self._fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)

    def append(self, record: Mapping[str, Any]) -> None:
        line = canonical_json(record) + b"\n"
        with _LOCK:
            fcntl.flock(self._fd, fcntl.LOCK_EX)
            try:
                written = os.write(self._fd, line)
                if written != len(line):  # never leave half a record behind
                    os.ftruncate(self._fd, os.lseek(self._fd, 0, os.SEEK_END) - written)
                    raise OSError(f"short write to {self.path}")
                os.fsync(self._fd)
            finally:
                fcntl.flock(self._fd, fcntl.LOCK_UN)

    def close(self) -> None:
        os.close(self._fd)

    def __enter__(self) -> "RecordWriter":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def detail_path(out_dir: Path, task_id: str, model: str, condition: str, sample: int) -> Path:
    """Where a run folder keeps one unit's detail for `bench view` (each turn's diff and feedback)."""
    return out_dir / "units" / task_id / f"{model.replace('/', '-')}.{condition}.{sample}.json"
