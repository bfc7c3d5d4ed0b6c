"""Files of the work dir frozen for one run: the inode's immutable flag, set by root after the tree is handed to
the run's uid and cleared before it is handed back.

An immutable file cannot be written, truncated, renamed, replaced, linked or removed, by any process of any
uid (the flag needs CAP_LINUX_IMMUTABLE, which the sandbox never has); an immutable directory cannot gain or
lose an entry. It costs one ioctl per file, where a read-only bind costs a mount in each of the two bwrap
stages (about half a millisecond each, measured: 40 binds added 15–23 ms to a run). Where the flag cannot be
set (the harness is not root, or the file system has no such flag) the backend binds the same paths read-only
instead; ``freeze`` says which paths it could not freeze.
"""

from __future__ import annotations

import fcntl
import os
import struct
from pathlib import Path
from typing import Iterable

FS_IOC_GETFLAGS = 0x80086601
FS_IOC_SETFLAGS = 0x40086602
FS_IMMUTABLE_FL = 0x00000010


class Frozen:
    """The paths frozen for a run; ``thaw`` on every way out (it clears only what ``freeze`` set)."""

    def __init__(self) -> None:
        self.done: list[Path] = []

    def thaw(self) -> None:
        for path in reversed(self.done):
            set_immutable(path, False)
        self.done = []


def freeze(workdir: Path, paths: Iterable[str]) -> tuple[Frozen, tuple[str, ...]]:
    """Set the immutable flag on ``workdir``/each path; returns what to thaw and the paths it could not freeze."""
    frozen, missed = Frozen(), []
    for rel in paths:
        path = Path(workdir) / rel
        if path.is_symlink() or not path.exists():
            continue
        if os.geteuid() == 0 and set_immutable(path, True):
            frozen.done.append(path)
        else:
            missed.append(rel)
    return frozen, tuple(missed)


def set_immutable(path: Path, on: bool) -> bool:
    """Set or clear the flag on a file or directory (never through a link); whether it worked."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
    except OSError:
        return False
    try:
        flags = struct.unpack("i", fcntl.ioctl(fd, FS_IOC_GETFLAGS, b"\0" * 4))[0]
        wanted = flags | FS_IMMUTABLE_FL if on else flags & ~FS_IMMUTABLE_FL
        if wanted != flags:
            fcntl.ioctl(fd, FS_IOC_SETFLAGS, struct.pack("i", wanted))
        return True
    except OSError:
        return False
    finally:
        os.close(fd)


def thaw_tree(top: Path) -> None:
    """Clear the flag everywhere under ``top`` (a run the harness could not tear down left it set)."""
    for folder, dirs, files in os.walk(top):
        for name in (*dirs, *files):
            path = Path(folder) / name
            if not path.is_symlink():
                set_immutable(path, False)
    set_immutable(Path(top), False)


def plan(request):
    """The request as a backend runs it, and whether to freeze its ``frozen`` paths after handing the work dir
    over: where the flag can be set (root, a file system that has it), nothing changes; elsewhere each path
    becomes a read-only bind over itself."""
    from dataclasses import replace

    from bench.sandbox.protocol import Mount

    if not request.frozen:
        return request, False
    if os.geteuid() == 0 and set_immutable(Path(request.workdir), False):
        return request, True
    binds = tuple(Mount(Path(request.workdir) / rel, f"/work/{rel}") for rel in request.frozen
                  if (Path(request.workdir) / rel).exists() and not (Path(request.workdir) / rel).is_symlink())
    return replace(request, mounts=(*request.mounts, *binds), frozen=()), False


def freeze_all(workdir: Path, paths: Iterable[str]) -> Frozen:
    """``freeze``, refusing to run with a path left unprotected."""
    from bench.errors import SandboxError

    frozen, missed = freeze(workdir, paths)
    if missed:
        frozen.thaw()
        raise SandboxError(f"could not make {len(missed)} paths immutable, e.g. {missed[0]!r}")
    return frozen
