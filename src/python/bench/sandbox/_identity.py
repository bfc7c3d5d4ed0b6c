"""Who a bwrap run executes as on the host, and handing its writable trees to that uid for the run.

When the harness is root, each concurrent run takes its own unprivileged uid from a small range, held by an
flock on a lock file in ``/run/loopcontrolbench``. A uid of its own per run matters because RLIMIT_NPROC
counts every process of a uid host-wide: with a shared uid one run's fork bomb would starve the others.
Inside the sandbox the uid always reads as ``SANDBOX_UID`` (bwrap maps it), so runs look alike to the code
under test. When the harness is not root the run keeps the caller's uid and nothing is chowned.
"""

from __future__ import annotations

import fcntl
import functools
import os
import pwd
import stat
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from bench.errors import SandboxError
from bench.sandbox import _tree

SANDBOX_UID = 64123  # what the code under test sees (same as the docker backend's user)
HOST_UID_BASE = 64200  # host uids of concurrent runs: HOST_UID_BASE + slot
SLOTS = 64
LOCK_DIR = Path("/run/loopcontrolbench/uids")


@dataclass(frozen=True)
class Identity:
    uid: int
    gid: int
    drop_privileges: bool  # True: the harness is root and switches to ``uid`` before bwrap


@contextmanager
def run_identity() -> Iterator[Identity]:
    """An identity held for the duration of one run."""
    if os.geteuid() != 0:
        yield Identity(os.getuid(), os.getgid(), False)
        return
    LOCK_DIR.mkdir(parents=True, exist_ok=True)
    held = None
    try:
        held = _take_slot()
        yield Identity(held[0], held[0], True)
    finally:
        if held is not None:
            os.close(held[1])


@functools.lru_cache(maxsize=1)
def _candidate_uids() -> tuple[int, ...]:
    return tuple(HOST_UID_BASE + n for n in range(SLOTS) if not _uid_taken(HOST_UID_BASE + n))


def _take_slot() -> tuple[int, int]:
    candidates = _candidate_uids()
    if not candidates:
        raise SandboxError(f"no free sandbox uid in {HOST_UID_BASE}..{HOST_UID_BASE + SLOTS - 1}")
    for blocking in (False, True):
        # First pass: any free slot. Second pass (all busy): wait for one, spread by pid.
        order = candidates if not blocking else candidates[os.getpid() % len(candidates):][:1]
        for uid in order:
            fd = os.open(LOCK_DIR / f"{uid}.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | (0 if blocking else fcntl.LOCK_NB))
                return uid, fd
            except BlockingIOError:
                os.close(fd)
    raise SandboxError("could not lock a sandbox uid")  # unreachable: the blocking pass waits


def _uid_taken(uid: int) -> bool:
    """A uid that belongs to a real account on the host is never handed to a sandbox."""
    try:
        pwd.getpwuid(uid)
        return True
    except KeyError:
        return False


# --- ownership of writable trees ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Owner:
    path: Path
    uid: int
    gid: int


def chown_tree(root: Path, uid: int, gid: int) -> None:
    """Every entry under ``root`` (itself included) to ``uid:gid``, at any depth (the run chooses how deep
    its tree goes: see ``_tree``), never following a symlink: a link planted in the tree must never hand a
    host file to anyone."""
    root = Path(os.path.abspath(root))
    try:
        mode = os.lstat(root).st_mode
    except FileNotFoundError:
        return
    if not stat.S_ISDIR(mode):
        os.chown(root, uid, gid, follow_symlinks=False)
        return

    def other(dir_fd: int, name: str) -> None:
        try:
            os.chown(name, uid, gid, dir_fd=dir_fd, follow_symlinks=False)
        except FileNotFoundError:
            pass

    parent = os.open(root.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        _tree.visit(parent, root.name, on_dir=lambda fd: os.fchown(fd, uid, gid), on_other=other)
    finally:
        os.close(parent)


def hand_over(paths: tuple[Path, ...], identity: Identity) -> tuple[Owner, ...]:
    """Give each tree to the run's uid; returns who owned it before (nothing when not root)."""
    if not identity.drop_privileges:
        return ()
    owners = []
    for path in paths:
        stat = os.stat(path, follow_symlinks=False)
        owners.append(Owner(path, stat.st_uid, stat.st_gid))
        chown_tree(path, identity.uid, identity.gid)
    return tuple(owners)


def hand_back(owners: tuple[Owner, ...]) -> None:
    """Every file, including those the run created, back to the tree's previous owner."""
    for owner in owners:
        chown_tree(owner.path, owner.uid, owner.gid)
