"""Removing the trees a sandbox run wrote into: scratch dirs, work dirs, report dirs.

Use these, not ``shutil.rmtree`` or ``tempfile.TemporaryDirectory``, for any folder the code under test could
write into: both recurse in Python 3.11 (RecursionError on a 1,500-deep chain, which also skips every later
clean-up) and use full paths (ENAMETOOLONG past 4,096 bytes). See ``_tree`` for how the walk avoids both.
"""

from __future__ import annotations

import functools
import os
import re
import tempfile
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from bench.sandbox import _tree
from bench.sandbox._cgroups import pid_alive


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


def fast_scratch(needed_bytes: int = 0) -> str | None:
    """Where a scratch folder of about ``needed_bytes`` goes: the host's tmpfs (``/dev/shm``) where it has one,
    ``TMPDIR`` names no other place, the folder is at most ``MAX_FAST_BYTES`` and the tmpfs keeps room to spare;
    else None (the default temp folder). On a disk mounted with ``discard`` (this project's CI machines: ext4)
    every removed directory or file costs about 0.5-2 ms: a 45-folder, 800-file work tree took 700 ms to copy
    and remove there, 86 ms on the tmpfs, and scoring copies one per attempt. A run's writes into a tmpfs are
    charged to its own memory limit (the cgroup), so a test that writes without end is stopped there."""
    if os.environ.get("TMPDIR") or needed_bytes > MAX_FAST_BYTES:
        return None
    try:
        if not os.access(FAST_SCRATCH, os.W_OK | os.X_OK):
            return None
        free = os.statvfs(FAST_SCRATCH)
    except OSError:
        return None
    if free.f_flag & (os.ST_NOEXEC | os.ST_RDONLY):
        return None  # a work tree's scripts must run there as they would on disk (containers mount it noexec)
    return FAST_SCRATCH if free.f_bavail * free.f_frsize >= 4 * needed_bytes + (1 << 30) else None


FAST_SCRATCH = "/dev/shm"
MAX_FAST_BYTES = 256 << 20


@functools.lru_cache(maxsize=256)
def tree_bytes(path: Path) -> int:
    """The bytes of the files under ``path`` (links not followed): about what a copy of it needs. Cached per path
    (a task's pristine tree is laid out once; an edited tree keeps about its size): only where the copy goes
    depends on it."""
    total = 0
    for folder, _, files in os.walk(path):
        for name in files:
            try:
                total += os.lstat(os.path.join(folder, name)).st_size
            except OSError:
                continue
    return total


@contextmanager
def tree_scratch(tree: Path, prefix: str) -> Iterator[Path]:
    """A scratch folder for a copy of ``tree`` (:func:`scratch_dir`), on the tmpfs when the copy fits there."""
    with scratch_dir(prefix=prefix, dir=fast_scratch(tree_bytes(Path(tree)))) as path:
        yield path


@contextmanager
def scratch_dir(prefix: str = "bench-", dir: str | os.PathLike | None = None) -> Iterator[Path]:
    """A fresh temp directory (``tempfile.mkdtemp``) removed with :func:`remove_tree` on every way out,
    KeyboardInterrupt (and so SIGTERM, see ``bench.cli.signals``) included. Its name carries this process's pid,
    so that what a killed process left is found and removed by the next one (:func:`sweep_stale_scratch`)."""
    _sweep_due(dir)
    path = Path(tempfile.mkdtemp(prefix=f"{prefix}{os.getpid()}-", dir=dir))
    try:
        yield path
    finally:
        remove_tree(path)


# bench-[<what>-]<pid>-<mkdtemp's suffix>: the names scratch_dir gives, its default prefix included.
_SCRATCH_NAME = re.compile(r"bench-(?:[a-z]+-)*(\d+)-[A-Za-z0-9_]{8}")
_swept: dict[str, float] = {}  # folder → when this process last swept it (time.monotonic)
_swept_lock = threading.Lock()
SWEEP_INTERVAL = 10.0  # seconds: a long-lived worker also finds what a sibling killed since left


def sweep_stale_scratch(folder: str | os.PathLike) -> tuple[str, ...]:
    """Remove the scratch folders in ``folder`` whose process is gone: a SIGKILLed harness or Dask worker cannot
    clean up, and on the tmpfs what it left holds memory until the machine restarts. A folder of a process that
    still runs, or of another user's (its pid cannot be signalled), is left alone; so is any other name."""
    removed = []
    try:
        names = os.listdir(folder)
    except OSError:
        return ()
    for name in names:
        match = _SCRATCH_NAME.fullmatch(name)
        if match is None or pid_alive(int(match.group(1))):
            continue
        try:
            remove_tree(Path(folder) / name)
            removed.append(name)
        except OSError:
            continue  # another thread or process is removing it, or it is not ours to remove
    return tuple(sorted(removed))


def _sweep_due(folder: str | os.PathLike | None) -> None:
    """Sweep the folder a scratch folder is about to be made in, at most once every SWEEP_INTERVAL seconds."""
    where = os.fspath(folder) if folder is not None else tempfile.gettempdir()
    now = time.monotonic()
    with _swept_lock:
        if now - _swept.get(where, -SWEEP_INTERVAL) < SWEEP_INTERVAL:
            return
        _swept[where] = now
    sweep_stale_scratch(where)
