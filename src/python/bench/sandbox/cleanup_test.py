"""Small per-run scratch folders go to a tmpfs where the host has one, and nowhere the user did not ask for."""

from __future__ import annotations

import os

import pytest

from bench.sandbox import cleanup
from bench.sandbox.cleanup import scratch_dir, small_scratch


def test_small_scratch_is_the_hosts_tmpfs_when_it_has_one(monkeypatch, tmp_path):
    monkeypatch.delenv("TMPDIR", raising=False)
    monkeypatch.setattr(cleanup, "SMALL_SCRATCH", str(tmp_path))
    assert small_scratch() == str(tmp_path)
    with scratch_dir(prefix="bench-guard-", dir=small_scratch()) as folder:
        assert folder.parent == tmp_path and folder.is_dir()
    assert not folder.exists()


def test_a_tmpdir_the_user_set_wins(monkeypatch, tmp_path):
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    assert small_scratch() is None


def test_no_tmpfs_means_the_default_temp_folder(monkeypatch, tmp_path):
    monkeypatch.delenv("TMPDIR", raising=False)
    monkeypatch.setattr(cleanup, "SMALL_SCRATCH", str(tmp_path / "absent"))
    assert small_scratch() is None


@pytest.mark.skipif(not os.access("/dev/shm", os.W_OK | os.X_OK), reason="the host has no writable /dev/shm")
def test_the_guard_scratch_of_a_run_lives_on_dev_shm_here(monkeypatch):
    monkeypatch.delenv("TMPDIR", raising=False)
    assert small_scratch() == "/dev/shm"
