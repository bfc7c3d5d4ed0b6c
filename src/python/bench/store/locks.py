"""One holder at a time across processes: an exclusive ``flock`` on a lock file for the length of a block."""

from __future__ import annotations

import contextlib
import fcntl
from pathlib import Path


@contextlib.contextmanager
def file_lock(path: Path):
    """Hold an exclusive lock on ``path`` (made, with its folder, if missing) while the block runs; other
    processes asking for it wait. The file's content is never read or written."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
