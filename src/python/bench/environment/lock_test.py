import os
from pathlib import Path

import pytest

from bench.testing.environment import scoring_test_image, tiny_src_repo, write_files
from bench.environment.lock import (
    SYNTHETIC_LOCK,
    Lock,
    LockInput,
    checkout_path,
    normalise_cutoff,
    resolve_lock,
    synthetic_lock,
    write_lock,
)
from bench.errors import EnvironmentBuildError, UsageError

CUTOFF = "2026-11-20"


def _tree(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    repo = tiny_src_repo(tmp_path_factory.mktemp("tiny") / "repo")
    before = _tree(repo)
    result = resolve_lock(repo, image=scoring_test_image(), cutoff=CUTOFF)
    return repo, before, result


def test_resolve_lock_pins_the_test_extra_build_requires_and_pytest_through_the_proxy(tiny):
    _, _, result = tiny
    lock = result.lock
    assert {(r.name, r.version) for r in lock.requirements} == {
        ("iniconfig", "2.3.1"), ("packaging", "26.3"), ("pluggy", "1.7.0"), ("pygments", "2.21.0"),
        ("pytest", "9.2.0"), ("setuptools", "84.2.1"), ("six", "1.17.0"),
    }
    assert all(r.hashes for r in lock.requirements)
    assert result.inputs == (
        LockInput("pytest", "harness"), LockInput("setuptools>=61", "build-system"), LockInput("six", "extra:test"),
    )
    assert (result.project, result.cutoff_used, result.fallback_reason) == ("tiny", "2026-11-20T00:00:00Z", "")
    assert result.sha256 == lock.sha256


def test_resolve_lock_text_has_no_command_or_path_and_leaves_the_repository_untouched(tiny):
    repo, before, result = tiny
    lines = result.text.splitlines()
    assert lines[0].startswith("# Hash-pinned test dependencies of one task")
    assert "from files uploaded before 2026-11-20T00:00:00Z" in lines[1]
    assert "pip-compile --" not in result.text and "/tmp" not in result.text and "/work" not in result.text
    assert "tiny==" not in result.text
    assert _tree(repo) == before


def test_synthetic_lock_regenerates_the_committed_file_exactly():
    committed = checkout_path(SYNTHETIC_LOCK).read_text(encoding="utf-8")
    result = synthetic_lock(scoring_test_image())
    assert result.text == committed
    assert [r.name for r in result.lock.requirements] == ["iniconfig", "packaging", "pluggy", "pygments", "pytest"]


def test_cutoff_before_any_usable_release_falls_back_and_says_why(tmp_path):
    result = resolve_lock(tmp_path, image=scoring_test_image(), cutoff="2001-01-01")
    assert result.cutoff_used is None
    assert result.fallback_reason.startswith("no resolution from files uploaded before 2001-01-01T00:00:00Z")
    assert "at resolution time (no cut-off)" in result.text.splitlines()[1]
    assert "pytest" in {r.name for r in result.lock.requirements}


def test_setup_py_runs_only_in_the_sandbox_and_its_extras_and_files_are_collected(tmp_path):
    host_marker = tmp_path / "setup-py-ran-on-host"
    repo = write_files(tmp_path / "repo", {
        "setup.py": (
            "from setuptools import setup\n"
            f"try:\n    open({str(host_marker)!r}, 'w').write('x')\nexcept OSError:\n    pass\n"
            "setup(name='setuppy-demo', version='1.0', py_modules=['demo'], install_requires=['six'],\n"
            "      extras_require={'testing': ['iniconfig'], 'docs': ['sphinx']})\n"
        ),
        "demo.py": "",
        "requirements-test.txt": "-e .\npluggy\ngit+https://github.com/x/y.git#egg=y\n",
        "pyproject.toml": '[dependency-groups]\ndev = ["packaging"]\n',
    })
    result = resolve_lock(repo, image=scoring_test_image(), cutoff=CUTOFF)
    assert not host_marker.exists()
    assert result.inputs == (
        LockInput("iniconfig", "metadata"), LockInput("packaging", "dependency-group:dev"),
        LockInput("pluggy", "requirements-test.txt"), LockInput("pytest", "harness"),
        LockInput("setuptools>=40.8.0", "build-system"), LockInput("six", "metadata"),
    )
    assert [d.requirement for d in result.dropped] == ["git+https://github.com/x/y.git#egg=y"]
    names = {r.name for r in result.lock.requirements}
    assert {"six", "iniconfig", "pluggy", "packaging", "setuptools", "pytest"} <= names
    assert "sphinx" not in names and "setuppy-demo" not in names and result.project == "setuppy-demo"


def test_normalise_cutoff_gives_utc_seconds():
    assert normalise_cutoff("2024-03-01") == "2024-03-01T00:00:00Z"
    assert normalise_cutoff("2024-03-01T12:30:00+02:00") == "2024-03-01T10:30:00Z"
    assert normalise_cutoff("2024-03-01T12:30:00Z") == "2024-03-01T12:30:00Z"
    assert normalise_cutoff(None) is None
    with pytest.raises(UsageError):
        normalise_cutoff("last tuesday")


GOOD = "six==1.17.0 \\\n    --hash=sha256:" + "4" * 64 + "\n"


def test_write_lock_writes_atomically_and_refuses_unhashed_text(tmp_path):
    path = write_lock("demo__demo-1", GOOD, root=tmp_path)
    assert path == tmp_path / "lockfiles" / "tasks" / "demo__demo-1.lock"
    assert path.read_text() == GOOD
    with pytest.raises(EnvironmentBuildError):
        write_lock("demo__demo-1", "six==1.17.0\n", root=tmp_path)
    assert path.read_text() == GOOD
    assert sorted(os.listdir(path.parent)) == ["demo__demo-1.lock"]  # no temp files left


@pytest.mark.parametrize("task_id", ["../escape", "a/b", "", ".hidden"])
def test_write_lock_refuses_task_ids_that_are_not_file_names(tmp_path, task_id):
    with pytest.raises(UsageError):
        write_lock(task_id, GOOD, root=tmp_path)


def test_lock_from_text_refuses_an_entry_without_hash():
    with pytest.raises(EnvironmentBuildError, match="without --hash"):
        Lock.from_text(GOOD + "pytest==9.2.0\n")


def test_a_late_package_nobody_names_is_locked_as_of_the_interpreters_release(tmp_path):
    # cffi (pulled in by cryptography) stands for a dependency whose release of the task's day has no wheel for
    # the image's Python; everything else keeps the task's day.
    repo = tiny_src_repo(tmp_path / "repo")
    pyproject = repo / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('test = ["six"]', 'test = ["six", "cryptography"]'))
    result = resolve_lock(repo, image=scoring_test_image(), cutoff="2022-06-01", late=("cffi",))
    versions = {r.name: r.version for r in result.lock.requirements}
    assert (versions["cffi"], versions["pycparser"]) == ("1.17.1", "2.22")
    assert (versions["cryptography"], versions["six"]) == ("37.0.2", "1.16.0")
    assert result.text.splitlines()[2] == ("# cffi, setuptools and their requirements from files uploaded before "
                                           "2024-10-07T00:00:00Z, when Python 3.13 was released.")


def test_old_code_that_fails_while_its_requirements_are_read_is_told_from_a_failed_lock():
    from bench.environment.lock import old_code_failure

    message = ("collecting the test requirements of repo failed (exit code 1):\nTraceback (most recent call last):\n"
               '  File "/work/repo/setup.py", line 4, in <module>\n    import imp\n'
               "ModuleNotFoundError: No module named 'imp'\n")
    assert old_code_failure(message) == "ModuleNotFoundError: No module named 'imp'"
    assert old_code_failure("pip-compile failed:\nModuleNotFoundError: No module named 'imp'") == ""
    assert old_code_failure(message.replace("/work/repo/setup.py", "/env/lib/site.py")) == ""


_BACKEND_EXITED = ("Traceback (most recent call last):\nbuild._exceptions.BuildBackendException: Backend subprocess "
                   "exited when trying to invoke prepare_metadata_for_build_wheel\n")


@pytest.mark.parametrize("said, cause", [
    # python-semver's setup.cfg of 2022 says `python_requires = >=3.7.*`; setuptools on Python 3.13 refuses it
    ('  File "/tmp/build-env-x/lib/python3.13/site-packages/packaging/specifiers.py", line 388\n'
     "packaging.specifiers.InvalidSpecifier: Invalid specifier: '>=3.7.*'\n",
     "packaging.specifiers.InvalidSpecifier: Invalid specifier: '>=3.7.*'"),
    # isodate's setup.py of 2018 passes use_2to3, which setuptools 58 removed
    ("error in isodate setup command: use_2to3 is invalid.\n", "error in isodate setup command: use_2to3 is invalid."),
])
def test_metadata_or_setup_arguments_todays_build_backend_refuses_are_old_code_not_a_failed_lock(said, cause):
    from bench.environment.lock import old_code_failure

    message = "collecting the test requirements of repo failed (exit code 1):\n" + said + _BACKEND_EXITED
    assert old_code_failure(message) == cause
    assert old_code_failure(message.replace("collecting the test requirements", "pip-compile")) == ""


def test_a_cutoff_the_index_cannot_tell_apart_shares_the_resolution_and_writes_what_resolving_writes(
        tmp_path, monkeypatch):
    from bench.environment import _lock_steps, resolution_share

    compiled = []
    compile_inputs = _lock_steps.compile_inputs

    def counting(*args, **kwargs):
        compiled.append(kwargs["cutoff"])
        return compile_inputs(*args, **kwargs)

    monkeypatch.setattr(_lock_steps, "compile_inputs", counting)
    monkeypatch.setattr(resolution_share, "default_store", lambda: resolution_share.Store(tmp_path / "store"))
    repo = tmp_path / "repo"
    repo.mkdir()
    # pytest 8.3.4 (2024-12-01) and its three dependencies saw no upload between these two days; 8.3.5 came on
    # 2025-03-02.
    first = resolve_lock(repo, image=scoring_test_image(), cutoff="2024-12-10")
    shared = resolve_lock(repo, image=scoring_test_image(), cutoff="2025-02-20")
    assert compiled == ["2024-12-10"]
    assert shared.cutoff_used == "2025-02-20T00:00:00Z" and shared.text != first.text
    assert {(r.name, r.version) for r in shared.lock.requirements} == {
        ("iniconfig", "2.0.0"), ("packaging", "24.2"), ("pluggy", "1.5.0"), ("pytest", "8.3.4")}
    monkeypatch.setattr(resolution_share, "default_store", lambda: resolution_share.Store(tmp_path / "empty"))
    again = resolve_lock(repo, image=scoring_test_image(), cutoff="2025-02-20")
    assert compiled == ["2024-12-10", "2025-02-20"]
    assert (again.text, again.inputs, again.dropped, again.project, again.first_pass) == (
        shared.text, shared.inputs, shared.dropped, shared.project, shared.first_pass)
    monkeypatch.setattr(resolution_share, "default_store", lambda: resolution_share.Store(tmp_path / "store"))
    across = resolve_lock(repo, image=scoring_test_image(), cutoff="2025-03-10")  # after pytest 8.3.5
    assert compiled[-1] == "2025-03-10" and ("pytest", "8.3.5") in {(r.name, r.version) for r in across.lock.requirements}


def test_the_same_compile_as_of_the_same_day_runs_pip_compile_once(tmp_path, monkeypatch):
    from bench.environment import _lock_steps, compile_cache, resolution_share

    from bench.testing.environment import counted_steps

    steps = counted_steps(monkeypatch, _lock_steps)
    monkeypatch.setattr(compile_cache, "default_store", lambda: tmp_path / "compiles")
    repo = tmp_path / "repo"
    repo.mkdir()
    texts = []
    for store in ("one", "two"):  # no stored resolution to share: the compile itself must be remembered
        monkeypatch.setattr(resolution_share, "default_store", lambda: resolution_share.Store(tmp_path / store))
        texts.append(resolve_lock(repo, image=scoring_test_image(), cutoff="2023-06-01").text)
    assert steps.count("pip-compile") == 1 and steps.count("collecting the test requirements of repo") == 2
    assert texts[0] == texts[1]
    monkeypatch.setattr(resolution_share, "default_store", lambda: resolution_share.Store(tmp_path / "three"))
    resolve_lock(repo, image=scoring_test_image(), cutoff=None)  # as of today: never remembered
    resolve_lock(repo, image=scoring_test_image(), cutoff=None)
    assert steps.count("pip-compile") == 3


def test_a_wheel_fits_when_its_tags_and_requires_python_admit_the_interpreter():
    from datetime import datetime, timezone

    from bench.environment.lock import _fits
    from bench.environment.manifest import InterpreterInfo
    from bench.environment.resolution_share import Released

    interpreter = InterpreterInfo("cpython", "3.13.5", "cpython-313-x86_64-linux-gnu", "linux-x86_64", "x86_64",
                                  "glibc", "2.41")
    fits = _fits(interpreter)
    day = datetime(2024, 1, 1, tzinfo=timezone.utc)

    def wheel(name, requires=""):
        return Released("1.0", day, False, name.endswith(".whl"), name, requires)

    assert fits(wheel("x-1.0-py3-none-any.whl"))
    assert fits(wheel("x-1.0-cp313-cp313-manylinux_2_17_x86_64.manylinux2014_x86_64.whl"))
    assert not fits(wheel("PyYAML-6.0-cp310-cp310-manylinux_2_17_x86_64.manylinux2014_x86_64.whl"))
    assert not fits(wheel("x-1.0-py3-none-any.whl", ">=3.14"))
    assert fits(wheel("x-1.0-py3-none-any.whl", ">=3.8"))
    assert not fits(wheel("x-1.0.tar.gz"))
