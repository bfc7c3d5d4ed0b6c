"""Walking a tree the sandbox wrote, without recursion, without following symlinks, at any depth.

The code under test controls what it leaves in its writable dirs: a directory chain thousands deep, paths
longer than PATH_MAX, symlinks to host files, directories with mode 0. ``os.walk`` and ``shutil.rmtree``
recurse in Python 3.11 (a 1,500-deep chain raises RecursionError) and address entries by full path (past
4,096 bytes every call fails with ENAMETOOLONG). Here every step is relative to an open directory fd, one
level at a time, and only two fds are held at once whatever the depth: the walk goes back up through "..",
which is safe because each level was entered with O_NOFOLLOW (it is the directory we came from) and nothing
of the run is alive to move it by the time the harness walks.
"""

from __future__ import annotations

import errno
import os
import stat
from typing import Callable

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def visit(parent_fd: int, name: str, *, on_dir: Callable[[int], None] = lambda fd: None,
          on_other: Callable[[int, str], None] = lambda fd, name: None,
          on_leave: Callable[[int, str], None] = lambda fd, name: None, make_accessible: bool = False) -> None:
    """Walk the directory ``name`` in ``parent_fd``: ``on_dir(fd)`` on entering each directory,
    ``on_other(dir_fd, name)`` for each entry that is not a directory (symlinks included, never followed),
    ``on_leave(parent_fd, name)`` once a directory's whole subtree has been visited (post-order).

    ``make_accessible``: a directory the caller may not read or write (mode 0, as a sandbox uid can leave
    them) is given mode 0700 first; needed only when the harness is not root."""
    fd = _open_dir(parent_fd, name, make_accessible)
    stack: list[tuple[str, list[str]]] = [(name, _enter(fd, on_dir, on_other, make_accessible))]
    try:
        while stack:
            pending = stack[-1][1]
            if pending:
                child = pending.pop()
                try:
                    child_fd = _open_dir(fd, child, make_accessible)
                except FileNotFoundError:
                    continue
                os.close(fd)
                fd = child_fd
                stack.append((child, _enter(fd, on_dir, on_other, make_accessible)))
                continue
            done, _ = stack.pop()
            if not stack:
                break
            up = os.open("..", _DIR_FLAGS, dir_fd=fd)
            os.close(fd)
            fd = up
            on_leave(fd, done)
    finally:
        os.close(fd)
    on_leave(parent_fd, name)


def _enter(fd: int, on_dir, on_other, make_accessible: bool) -> list[str]:
    """Call the visitors for one directory; returns the names of its subdirectories, still to visit."""
    if make_accessible:
        _ensure_writable(fd)
    on_dir(fd)
    subdirs = []
    with os.scandir(fd) as entries:
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                subdirs.append(entry.name)
            else:
                on_other(fd, entry.name)
    return subdirs


def _open_dir(parent_fd: int, name: str, make_accessible: bool) -> int:
    try:
        return os.open(name, _DIR_FLAGS, dir_fd=parent_fd)
    except PermissionError:
        if not make_accessible:
            raise
    # Linux has no lchmod; the entry was just seen as a directory and nothing of the run is alive to swap it.
    if not stat.S_ISDIR(os.stat(name, dir_fd=parent_fd, follow_symlinks=False).st_mode):
        raise OSError(errno.ENOTDIR, "not a directory", name)
    os.chmod(name, 0o700, dir_fd=parent_fd)
    return os.open(name, _DIR_FLAGS, dir_fd=parent_fd)


def _ensure_writable(fd: int) -> None:
    if os.geteuid() != 0 and not os.access(f"/proc/self/fd/{fd}", os.W_OK | os.X_OK):
        os.fchmod(fd, 0o700)


def remove(parent_fd: int, name: str) -> None:
    """Remove ``name`` in ``parent_fd`` and everything under it (a symlink or file: just that entry)."""
    try:
        mode = os.stat(name, dir_fd=parent_fd, follow_symlinks=False).st_mode
    except FileNotFoundError:
        return
    if not stat.S_ISDIR(mode):
        _unlink(parent_fd, name)
        return
    visit(parent_fd, name, on_other=_unlink, on_leave=_rmdir, make_accessible=os.geteuid() != 0)


def _unlink(dir_fd: int, name: str) -> None:
    try:
        os.unlink(name, dir_fd=dir_fd)
    except FileNotFoundError:
        pass


def _rmdir(dir_fd: int, name: str) -> None:
    try:
        os.rmdir(name, dir_fd=dir_fd)
    except FileNotFoundError:
        pass
