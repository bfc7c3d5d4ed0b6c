"""Trees a sandbox run can leave in its writable dirs — thousands of levels deep (paths past PATH_MAX), owned
by the run's uid, directories with mode 0, symlinks to host files — are handed back and removed whole."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bench.sandbox._identity import Identity, hand_back, hand_over
from bench.sandbox.cleanup import remove_tree, scratch_dir

RUN_UID = 64299  # a sandbox uid, as _identity hands out
FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW


def make_chain(root: Path, depth: int, *, uid: int | None = None, mode: int | None = None,
               link_to: Path | None = None) -> None:
    """``root/d/d/…/d`` ``depth`` levels deep, with a file, a hard-to-miss symlink and a sibling dir at every
    100th level; optionally each dir chowned to ``uid`` and chmod'ed to ``mode`` (set bottom-up, the way the
    run could, since a mode-0 dir can no longer be entered by its owner)."""
    fds = [os.open(root, FLAGS)]
    try:
        for level in range(depth):
            os.mkdir("d", dir_fd=fds[-1])
            if level % 100 == 0:
                os.mkdir("side", dir_fd=fds[-1])
                with open(os.open("f", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fds[-1]), "w") as handle:
                    handle.write("x")
                if link_to is not None:
                    os.symlink(link_to, "link", dir_fd=fds[-1])
            fds.append(os.open("d", FLAGS, dir_fd=fds[-1]))
        for fd in reversed(fds[1:]):
            for name in os.listdir(fd):
                if uid is not None:
                    os.chown(name, uid, uid, dir_fd=fd, follow_symlinks=False)
            if uid is not None:
                os.fchown(fd, uid, uid)
            if mode is not None:
                os.fchmod(fd, mode)
    finally:
        for fd in fds:
            os.close(fd)


def chain_owners(root: Path) -> tuple[int, set[int]]:
    """(depth, the uids of every entry) of a chain made by :func:`make_chain`, read level by level."""
    uids: set[int] = set()
    depth = 0
    fd = os.open(root, FLAGS)
    try:
        while True:
            for name in os.listdir(fd):
                uids.add(os.stat(name, dir_fd=fd, follow_symlinks=False).st_uid)
            if "d" not in os.listdir(fd):
                return depth, uids
            child = os.open("d", FLAGS, dir_fd=fd)
            os.close(fd)
            fd = child
            depth += 1
    finally:
        os.close(fd)


@pytest.mark.parametrize("depth", [1500, 5000])
def test_remove_tree_removes_deep_chain_of_another_uid_with_mode_0_dirs(tmp_path: Path, depth: int):
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "keep").write_text("host file")
    work = tmp_path / "work"
    work.mkdir()
    make_chain(work, depth, uid=RUN_UID, mode=0, link_to=victim)
    assert depth < 2000 or len(str(work)) + 2 * depth > 4096  # 5,000 levels: deeper than a full path can name
    remove_tree(work)
    assert not os.path.lexists(work)
    assert (victim / "keep").read_text() == "host file"  # links were removed, never followed


def test_remove_tree_of_a_symlink_removes_only_the_link(tmp_path: Path):
    target = tmp_path / "target"
    target.mkdir()
    (target / "keep").write_text("x")
    (tmp_path / "link").symlink_to(target)
    remove_tree(tmp_path / "link")
    remove_tree(tmp_path / "missing")  # nothing there: not an error
    assert not os.path.lexists(tmp_path / "link") and (target / "keep").exists()


def test_remove_tree_as_the_run_uid_opens_its_mode_0_dirs():
    """Not root (the harness run by a user): dirs the run made unreadable and unwritable are its own."""
    with scratch_dir(prefix="bench-test-") as home:  # in /tmp: pytest's tmp_path is closed to other uids
        os.chown(home, RUN_UID, RUN_UID)
        pid = os.fork()
        if pid == 0:  # the child drops to the run's uid, builds the tree and removes it
            code = 1
            try:
                os.setgid(RUN_UID)
                os.setuid(RUN_UID)
                make_chain(home, 1500, mode=0)
                remove_tree(home)
                code = 0 if not os.path.lexists(home) else 2
            finally:
                os._exit(code)
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0 and not home.exists()


def test_scratch_dir_removes_a_deep_tree_on_interrupt(tmp_path: Path):
    with pytest.raises(KeyboardInterrupt):
        with scratch_dir(prefix="bench-test-", dir=tmp_path) as scratch:
            make_chain(scratch, 1500, uid=RUN_UID, mode=0)
            raise KeyboardInterrupt
    assert not scratch.exists() and os.listdir(tmp_path) == []


def test_hand_back_survives_5000_deep_tree_left_by_the_run(tmp_path: Path):
    victim = tmp_path / "victim"
    victim.write_text("host")
    os.chown(victim, 4242, 4242)
    work = tmp_path / "work"
    work.mkdir()
    owners = hand_over((work,), Identity(RUN_UID, RUN_UID, True))
    assert work.stat().st_uid == RUN_UID
    make_chain(work, 5000, uid=RUN_UID, mode=0, link_to=victim)  # what the run leaves behind
    hand_back(owners)
    depth, uids = chain_owners(work)
    assert depth == 5000 and uids == {0} and work.stat().st_uid == 0
    assert victim.stat().st_uid == 4242  # a planted link never passes a host file to anyone
    remove_tree(work)  # not left to pytest: its clean-up of old tmp dirs recurses
