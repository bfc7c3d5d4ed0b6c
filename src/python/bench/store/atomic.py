"""The one way the harness persists a file: readers see the old content or the new, never half of it."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_atomic(path: Path, data: bytes, *, mode: int = 0o644, sync: bool = True) -> Path:
    """Write `data` to a temp file beside `path`, flush it to disk (unless `sync` is False: scratch trees that
    a crash throws away anyway), then `os.replace` it into place."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            if sync:
                os.fsync(handle.fileno())
        os.chmod(temp, mode)  # mkstemp makes 0600; results and pins are meant to be read by others
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    return path
