"""Small per-run scratch folders go to a tmpfs where the host has one, and nowhere the user did not ask for."""

from __future__ import annotations

import os

from bench.sandbox import cleanup
from bench.sandbox.cleanup import fast_scratch, scratch_dir, tree_bytes, tree_scratch


def test_fast_scratch_is_the_hosts_tmpfs_when_it_has_one(monkeypatch, tmp_path):
    monkeypatch.delenv("TMPDIR", raising=False)
    monkeypatch.setattr(cleanup, "FAST_SCRATCH", str(tmp_path))
    assert fast_scratch() == str(tmp_path)
    with scratch_dir(prefix="bench-guard-", dir=fast_scratch()) as folder:
        assert folder.parent == tmp_path and folder.is_dir()
    assert not folder.exists()


def test_a_tmpdir_the_user_set_wins(monkeypatch, tmp_path):
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    assert fast_scratch() is None


def test_no_tmpfs_means_the_default_temp_folder(monkeypatch, tmp_path):
    monkeypatch.delenv("TMPDIR", raising=False)
    monkeypatch.setattr(cleanup, "FAST_SCRATCH", str(tmp_path / "absent"))
    assert fast_scratch() is None


def test_a_tree_too_large_for_the_tmpfs_goes_to_the_default_temp_folder(monkeypatch, tmp_path):
    monkeypatch.delenv("TMPDIR", raising=False)
    monkeypatch.setattr(cleanup, "FAST_SCRATCH", str(tmp_path))
    assert fast_scratch(cleanup.MAX_FAST_BYTES) == str(tmp_path)
    assert fast_scratch(cleanup.MAX_FAST_BYTES + 1) is None


def test_an_attempts_copy_of_a_small_tree_lives_on_the_tmpfs(monkeypatch, tmp_path):
    monkeypatch.delenv("TMPDIR", raising=False)
    fast = tmp_path / "fast"
    fast.mkdir()
    monkeypatch.setattr(cleanup, "FAST_SCRATCH", str(fast))
    tree = tmp_path / "pristine"
    (tree / "pkg").mkdir(parents=True)
    (tree / "pkg" / "mod.py").write_text("x = 1\n" * 100)
    (tree / "link").symlink_to("pkg/mod.py")
    assert tree_bytes(tree) == 600 + len("pkg/mod.py")
    with tree_scratch(tree, "bench-attempt-") as folder:
        assert folder.parent == fast
    assert not folder.exists()


def test_a_noexec_tmpfs_is_not_used(monkeypatch, tmp_path):
    """Containers mount /dev/shm noexec: a work tree there could not run its own scripts."""
    import collections

    monkeypatch.delenv("TMPDIR", raising=False)
    monkeypatch.setattr(cleanup, "FAST_SCRATCH", str(tmp_path))
    real = os.statvfs(tmp_path)
    fields = collections.namedtuple("statvfs", "f_bavail f_frsize f_flag")
    monkeypatch.setattr(cleanup.os, "statvfs", lambda _: fields(real.f_bavail, real.f_frsize, os.ST_NOEXEC))
    assert fast_scratch() is None
    monkeypatch.setattr(cleanup.os, "statvfs", lambda _: fields(real.f_bavail, real.f_frsize, 0))
    assert fast_scratch() == str(tmp_path)


def _dead_pid() -> int:
    import subprocess

    child = subprocess.Popen(["true"])
    child.wait()
    return child.pid


def test_scratch_left_by_a_killed_process_is_swept_by_the_next(tmp_path):
    """A SIGKILLed worker cannot remove its scratch folders; the next process that makes one there removes
    them. Folders of live processes and other names stay."""
    dead = _dead_pid()
    left = [tmp_path / f"bench-run-{dead}-abcd1234", tmp_path / f"bench-honest-fix-{dead}-_x9Yz012",
            tmp_path / f"bench-{dead}-q1w2e3r4"]
    for folder in left:
        (folder / "tree" / "pkg").mkdir(parents=True)
        (folder / "tree" / "pkg" / "mod.py").write_text("x = 1\n")
    live = tmp_path / f"bench-loop-{os.getpid()}-abcd1234"
    other = [tmp_path / f"bench-run-{dead}", tmp_path / "pants-sandboxes-0", tmp_path / f"mine-{dead}-abcd1234"]
    for folder in (live, *other):
        folder.mkdir()
    assert cleanup.sweep_stale_scratch(tmp_path) == tuple(sorted(f.name for f in left))
    assert not any(f.exists() for f in left)
    assert live.is_dir() and all(f.is_dir() for f in other)


def test_a_scratch_folder_is_named_with_its_process_and_sweeps_its_folder_first(monkeypatch, tmp_path):
    """The sweep runs when a scratch folder is made, at most once every SWEEP_INTERVAL seconds a folder."""
    dead = _dead_pid()
    stale = tmp_path / f"bench-guard-{dead}-abcd1234"
    stale.mkdir()
    monkeypatch.setattr(cleanup, "_swept", {})
    with scratch_dir(prefix="bench-guard-", dir=tmp_path) as folder:
        assert folder.name.startswith(f"bench-guard-{os.getpid()}-")
        assert not stale.exists()
    assert list(tmp_path.iterdir()) == []


def test_the_sweep_waits_its_interval(monkeypatch, tmp_path):
    monkeypatch.setattr(cleanup, "_swept", {})
    with scratch_dir(prefix="bench-guard-", dir=tmp_path):
        pass
    stale = tmp_path / f"bench-guard-{_dead_pid()}-abcd1234"
    stale.mkdir()
    with scratch_dir(prefix="bench-guard-", dir=tmp_path):
        assert stale.is_dir()  # swept a moment ago: not again yet
    monkeypatch.setattr(cleanup, "SWEEP_INTERVAL", 0.0)
    with scratch_dir(prefix="bench-guard-", dir=tmp_path):
        assert not stale.exists()
