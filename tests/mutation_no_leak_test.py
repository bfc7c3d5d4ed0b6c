"""What a model and its edit can see of a mutation task is the mutated tree, nothing that tells the original.

A real committed task (a bug injected into six 1.16.0) is prepared exactly as `bench score` prepares it. The
checks: the workspace holds no archive, bytecode or history with the original; no copy of the released file
(by content), no compiled form of it and no install record naming it is anywhere the sandbox mounts (pip's
private vendored copies aside); inside the sandbox the library imports from the workspace; and the sandbox has
no network.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from bench.sandbox.protocol import ExecRequest, Limits
from bench.source.sdist import fetch_sdist, unpack_sdist
from bench.testing.support import prepared_task
from bench.verdict.run_tests import BASE_ENV

TASK = "mutation.six.1.16.0.08bbcc5a"
ARCHIVE_SUFFIXES = (".tar.gz", ".tgz", ".zip", ".whl", ".tar.bz2", ".tar.xz")

PROBE = """
import json, socket, six
result = {"six": six.__file__}
for target in (("1.1.1.1", 443), ("pypi.org", 443)):
    try:
        socket.create_connection(target, timeout=3).close()
        result[target[0]] = "connected"
    except OSError as exc:
        result[target[0]] = type(exc).__name__
print(json.dumps(result))
"""


@pytest.fixture(scope="module")
def task(tmp_path_factory):
    return prepared_task(TASK, tmp_path_factory.mktemp("prepared"))


@pytest.fixture(scope="module")
def released_file(task, tmp_path_factory) -> bytes:
    """The mutated file as released (fetched here, on the host, only to know what must not be visible)."""
    tree = unpack_sdist(fetch_sdist(task.spec.sdist), tmp_path_factory.mktemp("release") / "tree")
    return (tree / task.spec.mutation.file).read_bytes()


def _files(root: Path):
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            yield Path(dirpath) / name


def test_the_workspace_holds_the_mutant_and_nothing_that_tells_the_original(task, released_file):
    site = task.spec.mutation
    mutated = (task.pristine / site.file).read_bytes()
    assert mutated[site.start : site.start + len(site.replacement)] == site.replacement.encode()
    assert hashlib.sha256(released_file[site.start : site.end]).hexdigest() == site.original_sha256
    assert mutated != released_file
    names = [p.relative_to(task.pristine).as_posix() for p in _files(task.pristine)]
    assert not [n for n in names if n.endswith(ARCHIVE_SUFFIXES)]
    assert not [n for n in names if "__pycache__" in n or n.endswith(".pyc") or n.endswith("/RECORD")]
    assert not [n for n in names if n.split("/")[0] in (".hg", ".tox", ".pytest_cache")]


def test_the_workspace_history_is_one_commit_of_the_mutated_tree(task):
    assert (task.pristine / ".git").is_dir()  # a snapshot, so builds and tools that expect a repository work

    def git(*argv: str) -> str:
        return subprocess.run(("git", *argv), cwd=task.pristine, check=True, capture_output=True,
                              text=True).stdout

    assert git("rev-list", "--all", "--count").strip() == "1"
    committed = subprocess.run(("git", "show", f"HEAD:{task.spec.mutation.file}"), cwd=task.pristine,
                               check=True, capture_output=True).stdout
    assert committed == (task.pristine / task.spec.mutation.file).read_bytes()
    every_object = set(git("cat-file", "--batch-all-objects", "--batch-check=%(objectname)").split())
    reachable = {line.split()[0] for line in git("rev-list", "--objects", "--all").splitlines()}
    assert every_object == reachable  # no loose object from anything but the one commit


def test_no_mount_holds_the_released_file_its_bytecode_or_an_install_record_of_it(task, released_file):
    released_sha = hashlib.sha256(released_file).hexdigest()
    stem = Path(task.spec.mutation.file).stem
    mounted = [m.host_path for m in task.mounts if Path(m.host_path).exists()]
    assert mounted, "the prepared task mounts its environment"
    for root in mounted:
        for path in _files(Path(root)):
            # pip vendors its own copies of a few libraries (six 1.16.0 among them, under pip/_vendor/urllib3):
            # pip's private modules, never what the task's code imports (checked in the sandbox below).
            if path.is_symlink() or not path.is_file() or "/pip/_vendor/" in path.as_posix():
                continue
            assert not (path.name.startswith(f"{stem}.") and path.suffix == ".pyc"), path
            if path.name == task.spec.mutation.file.rsplit("/", 1)[-1]:
                assert hashlib.sha256(path.read_bytes()).hexdigest() != released_sha, path
            if path.name == "RECORD":
                listed = [line.split(",")[0] for line in path.read_text(errors="replace").splitlines()]
                assert task.spec.mutation.file not in listed, path


def test_inside_the_sandbox_the_library_is_the_workspace_and_there_is_no_network(task, tmp_path):
    work = tmp_path / "work"
    shutil.copytree(task.pristine, work, symlinks=True)
    result = task.sandbox.run(ExecRequest(
        argv=(task.python, "-c", PROBE), workdir=work, image_root=task.image_root, image_digest=task.image_digest,
        env=tuple(BASE_ENV) + tuple(task.env), mounts=task.mounts, cwd="/tmp",
        limits=Limits(wall_seconds=60.0),
    ))
    assert result.exit_code == 0, result.stderr.decode(errors="replace")
    seen = json.loads(result.stdout.decode().strip().splitlines()[-1])
    assert seen["six"] == "/work/six.py"
    assert seen["1.1.1.1"] != "connected" and seen["pypi.org"] != "connected"
