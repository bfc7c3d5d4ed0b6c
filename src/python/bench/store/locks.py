"""One holder at a time across processes: an exclusive ``flock`` on a lock file for the length of a block."""

from __future__ import annotations

import contextlib
import fcntl
from pathlib import Path


@contextlib.contextmanager
def file_lock(path: Path, *, wait: bool = True, held_message: str = ""):
    """Hold an exclusive lock on ``path`` (made, with its folder, if missing) while the block runs; other
    processes asking for it wait, or with ``wait=False`` get a UsageError saying ``held_message``. The file's
    content is never read or written."""
    from bench.errors import UsageError

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError as exc:
            raise UsageError(held_message or f"{path} is locked by another process") from exc
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
