"""The guard's launcher compiled by the task's own interpreter: once per environment, kept whole, and a
guarded run started from it grades as one started from the source."""

import dataclasses
import shutil

import pytest

from bench.sandbox.protocol import ExecRequest
from bench.score.task_env import limits_for
from bench.testing.support import prepared_task
from bench.verdict import launcher_code
from bench.verdict.guard import launcher_source
from bench.verdict.run_tests import BASE_ENV, GuardRequest, run_tests


class CountingSandbox:
    def __init__(self, sandbox):
        self.sandbox, self.runs, self.argvs = sandbox, 0, []
        self.name = sandbox.name

    def run(self, request):
        self.runs += 1
        self.argvs.append(request.argv)
        return self.sandbox.run(request)


@pytest.fixture(scope="module")
def task(tmp_path_factory):
    return prepared_task("synthetic.caesar_shift", tmp_path_factory.mktemp("prepared"))


@pytest.fixture
def where(task, tmp_path, monkeypatch):
    monkeypatch.setenv("BENCH_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(launcher_code, "_known", {})
    return dataclasses.replace(task.run_environment, sandbox=CountingSandbox(task.sandbox))


def _magic(task) -> bytes:
    request = ExecRequest(argv=(task.python, "-c", "import importlib.util, sys; "
                                "sys.stdout.buffer.write(importlib.util.MAGIC_NUMBER)"),
                          workdir=task.pristine, image_root=task.image_root, image_digest=task.image_digest,
                          env=tuple(BASE_ENV) + tuple(task.env), mounts=tuple(task.mounts))
    return task.sandbox.run(request).stdout


def test_the_launcher_is_compiled_once_by_the_task_interpreter_and_kept_whole(task, where, tmp_path, monkeypatch):
    code = launcher_code.launcher_bytecode(where, launcher_source())
    assert code[:4] == _magic(task) and where.sandbox.runs == 1
    assert launcher_code.launcher_bytecode(where, launcher_source()) == code and where.sandbox.runs == 1
    monkeypatch.setattr(launcher_code, "_known", {})  # a new process: read from the cache dir
    assert launcher_code.launcher_bytecode(where, launcher_source()) == code and where.sandbox.runs == 1
    (cached,) = (tmp_path / "cache" / "guard-launcher").iterdir()
    damaged = bytearray(cached.read_bytes())
    damaged[-1] ^= 0xFF
    cached.write_bytes(bytes(damaged))  # a damaged file is never run: compiled again
    monkeypatch.setattr(launcher_code, "_known", {})
    assert launcher_code.launcher_bytecode(where, launcher_source()) == code and where.sandbox.runs == 2
    other = launcher_source() + b"\n# another launcher\n"
    assert launcher_code.launcher_bytecode(where, other) not in (None, code) and where.sandbox.runs == 3


def test_an_interpreter_that_cannot_compile_it_leaves_the_source(where):
    broken = dataclasses.replace(where, python="/nonexistent/python")
    assert launcher_code.launcher_bytecode(broken, launcher_source()) is None


def test_a_run_started_from_the_bytecode_grades_as_one_started_from_the_source(task, where, tmp_path, monkeypatch):
    spec = task.spec
    guard = GuardRequest((), ("caesar",), source_files=tuple(spec.source_files), targets=tuple(spec.fail_to_pass))
    seen = {}
    for label in ("bytecode", "source"):
        if label == "source":
            monkeypatch.setattr(launcher_code, "launcher_bytecode", lambda where, source: None)
        tree = tmp_path / label
        shutil.copytree(task.pristine, tree, symlinks=True)
        run = run_tests(where, workdir=tree, test_files=spec.test_files, limits=limits_for(spec), guard=guard)
        assert where.sandbox.argvs[-1][1].endswith("/launcher.pyc" if label == "bytecode" else "/launcher.py")
        seen[label] = (run.exit_code, run.tampering, run.tampering_if_solved,
                       tuple((o.test_id, o.outcome) for o in run.report.outcomes))
    assert seen["bytecode"] == seen["source"]
    assert dict(seen["source"][3])[spec.fail_to_pass[0]] == "failed"  # the pristine tree: the bug is there


def test_an_edit_that_rewrites_the_launcher_it_started_from_changes_neither_the_run_nor_the_cached_bytecode(
        task, where, tmp_path):
    """The bytecode decides whether the guard runs at all: the run's copy is a read-only bind, and the cached
    file lives on the host, out of the sandbox's reach."""
    spec = task.spec
    code = launcher_code.launcher_bytecode(where, launcher_source())
    tree = tmp_path / "attacked"
    shutil.copytree(task.pristine, tree, symlinks=True)
    attack = ("import sys as _s\n"
              "for _mode in ('r+b', 'wb'):\n"
              "    try:\n"
              "        with open(_s.argv[0], _mode) as _f:\n"
              "            _f.write(b'\\0' * 64)\n"
              "    except OSError:\n"
              "        continue\n"
              "    raise RuntimeError('the launcher was written')\n")  # the module would not import: no test runs
    source = tree / spec.source_files[0]
    source.write_text(attack + source.read_text())
    guard = GuardRequest((), ("caesar",), source_files=tuple(spec.source_files), targets=tuple(spec.fail_to_pass))
    run = run_tests(where, workdir=tree, test_files=spec.test_files, limits=limits_for(spec), guard=guard)
    assert where.sandbox.argvs[-1][1].endswith("/launcher.pyc")
    assert run.report is not None and dict((o.test_id, o.outcome) for o in run.report.outcomes)[
        spec.fail_to_pass[0]] == "failed"  # the bug is still there, and the run still reports it
    (cached,) = (tmp_path / "cache" / "guard-launcher").iterdir()
    assert cached.read_bytes()[32:] == code
    launcher_code._known.clear()
    assert launcher_code.launcher_bytecode(where, launcher_source()) == code


def test_compiling_the_same_launcher_a_second_later_gives_the_same_bytes(task, where, tmp_path, monkeypatch):
    """A timestamp .pyc carries the mtime of the file it was compiled from: a compile that crossed a second
    boundary gave other bytes for the same launcher (met on a loaded machine). The header holds its hash."""
    import time

    first = launcher_code.launcher_bytecode(where, launcher_source())
    shutil.rmtree(tmp_path / "cache" / "guard-launcher")
    monkeypatch.setattr(launcher_code, "_known", {})
    time.sleep(1.1)
    assert launcher_code.launcher_bytecode(where, launcher_source()) == first and where.sandbox.runs == 2
