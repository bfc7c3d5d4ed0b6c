"""Removing the trees a sandbox run wrote into: scratch dirs, work dirs, report dirs.

Use these, not ``shutil.rmtree`` or ``tempfile.TemporaryDirectory``, for any folder the code under test could
write into: both recurse in Python 3.11 (RecursionError on a 1,500-deep chain, which also skips every later
clean-up) and use full paths (ENAMETOOLONG past 4,096 bytes). See ``_tree`` for how the walk avoids both.
"""

from __future__ import annotations

import os
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from bench.sandbox import _tree


def remove_tree(path: str | os.PathLike) -> None:
    """Remove ``path`` and everything under it, whatever its depth, owners and modes; never follows a
    symlink (a link is removed, not what it points to). A missing path is not an error."""
    path = Path(os.path.abspath(path))
    parent = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        try:
            _tree.remove(parent, path.name)
        except PermissionError:
            if os.geteuid() != 0 or not path.is_dir():
                raise
            from bench.sandbox._frozen import thaw_tree

            thaw_tree(path)  # a run the harness could not tear down left files immutable
            _tree.remove(parent, path.name)
    finally:
        os.close(parent)


def small_scratch() -> str | None:
    """Where a run's small scratch folders go (a few kilobytes the harness writes and binds read-only into the
    sandbox): a tmpfs (``/dev/shm``) where the host has one and ``TMPDIR`` names no other place, else the default
    temp folder. On a disk mounted with ``discard`` removing a directory costs about 2 ms (this project's CI
    machines: ext4, discard), on a tmpfs microseconds, and every scored attempt removes a few."""
    if os.environ.get("TMPDIR") or not os.path.isdir(SMALL_SCRATCH) or not os.access(SMALL_SCRATCH, os.W_OK | os.X_OK):
        return None
    return SMALL_SCRATCH


SMALL_SCRATCH = "/dev/shm"


@contextmanager
def scratch_dir(prefix: str = "bench-", dir: str | os.PathLike | None = None) -> Iterator[Path]:
    """A fresh temp directory (``tempfile.mkdtemp``) removed with :func:`remove_tree` on every way out,
    KeyboardInterrupt (and so SIGTERM, see ``bench.cli.signals``) included."""
    path = Path(tempfile.mkdtemp(prefix=prefix, dir=dir))
    try:
        yield path
    finally:
        remove_tree(path)
