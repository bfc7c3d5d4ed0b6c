"""`./pants` puts Pants' process sandboxes on tmpfs when /dev/shm has room (build-support/execution_root.sh),
and leaves Pants' default alone otherwise."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from bench.testing.support import checkout_root

SCRIPT = "build-support/execution_root.sh"


def _root(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", str(checkout_root() / SCRIPT), *args], capture_output=True, text=True)


def _filesystem(path: str) -> str:
    return subprocess.run(["stat", "-f", "-c", "%T", path], capture_output=True, text=True).stdout.strip()


def test_a_tmpfs_with_room_is_taken():
    assert _filesystem("/dev/shm") == "tmpfs"  # every machine of this project's kind has one
    done = _root("/dev/shm", "1")
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"/dev/shm/pants-sandboxes-{os.getuid()}\n"


def test_a_tmpfs_without_the_room_asked_for_is_not():
    done = _root("/dev/shm", str(1 << 40))  # a million TiB free: no machine has it
    assert (done.returncode, done.stdout) == (0, "")


def test_a_folder_that_is_not_tmpfs_is_not(tmp_path: Path):
    # Pants' sandbox may itself sit on the tmpfs: take the first writable folder on a disk.
    disk = next((folder for folder in (str(tmp_path), "/var/tmp", str(Path.home()), "/root")
                 if os.access(folder, os.W_OK) and _filesystem(folder) not in ("", "tmpfs")), None)
    assert disk is not None, "no writable folder outside a tmpfs"
    done = _root(disk, "0")
    assert (done.returncode, done.stdout) == (0, "")


def test_a_missing_folder_is_not(tmp_path: Path):
    done = _root(str(tmp_path / "absent"), "0")
    assert (done.returncode, done.stdout) == (0, "")


def test_the_launcher_asks_the_script_and_lets_the_caller_win():
    launcher = (checkout_root() / "pants").read_text()
    assert 'if [ -z "${PANTS_LOCAL_EXECUTION_ROOT_DIR:-}" ]; then' in launcher
    assert '"$here/build-support/execution_root.sh"' in launcher
