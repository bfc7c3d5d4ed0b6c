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


def test_a_name_other_than_the_sandboxes_is_printed_under_the_same_rules():
    done = _root("/dev/shm", "1", "pants-test-tmp")
    assert (done.returncode, done.stdout) == (0, f"/dev/shm/pants-test-tmp-{os.getuid()}\n")


def _launch(tmp_path: Path, **env: str) -> dict[str, str]:
    """Run the real ./pants launcher with a stand-in Pants that reports the settings the launcher exported."""
    boot = tmp_path / "bootstrap"
    (boot / "venv/bin").mkdir(parents=True)
    (boot / ".ok-2.17.1-2.1.137").touch()  # the launcher's "bootstrap done" stamp
    stand_in = boot / "venv/bin/pants"
    stand_in.write_text('#!/bin/sh\necho "root=$PANTS_LOCAL_EXECUTION_ROOT_DIR"\n'
                        'echo "tests=$PANTS_TEST_EXTRA_ENV_VARS"\n')
    stand_in.chmod(0o755)
    done = subprocess.run([str(checkout_root() / "pants")], capture_output=True, text=True,
                          env={"PATH": os.environ["PATH"], "HOME": str(tmp_path), "PANTS_BOOTSTRAP_DIR": str(boot),
                               **env})
    assert done.returncode == 0, done.stderr
    return dict(line.split("=", 1) for line in done.stdout.splitlines())


def test_the_launcher_gives_test_processes_a_temp_folder_on_the_tmpfs_open_to_every_uid(tmp_path: Path):
    expected = _root("/dev/shm", "4", "pants-test-tmp").stdout.strip()
    settings = _launch(tmp_path)
    if not expected:  # too little room on this machine's tmpfs: Pants' and the tests' defaults stay
        assert settings["tests"] == ""
        return
    assert settings["tests"] == f"+['TMPDIR={expected}']"
    assert os.stat(expected).st_mode & 0o7777 == 0o1777  # sticky and world-writable, as /tmp


def test_the_callers_test_environment_wins_over_the_launchers(tmp_path: Path):
    settings = _launch(tmp_path, PANTS_TEST_EXTRA_ENV_VARS="+['TMPDIR=/var/tmp']",
                       PANTS_LOCAL_EXECUTION_ROOT_DIR="/var/tmp/sandboxes")
    assert settings == {"root": "/var/tmp/sandboxes", "tests": "+['TMPDIR=/var/tmp']"}
