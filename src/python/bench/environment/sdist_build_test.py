import io
import tarfile
import zipfile
from pathlib import Path

import pytest

from bench.environment import sdist_build
from bench.testing.environment import scoring_test_image
from bench.environment.lock import Lock
from bench.environment.venv import ensure_venv
from bench.errors import EnvironmentBuildError

SIX_SDIST_SHA = "ff70335d468e7eb6ec65b95b99d3a2836546063f63acc5171de367e834932a81"


def _tar_sdist(path: Path, files: dict[str, str]) -> Path:
    with tarfile.open(path, "w:gz") as archive:
        for name, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return path


def test_declared_build_requires_are_read_from_the_archive_as_data(tmp_path):
    sdist = _tar_sdist(tmp_path / "demo-1.0.tar.gz", {
        "demo-1.0/pyproject.toml": '[build-system]\nrequires = ["hatchling>=1.20", "hatch-vcs"]\n',
        "demo-1.0/sub/pyproject.toml": '[build-system]\nrequires = ["ignored"]\n',
    })
    assert sdist_build.declared_build_requires(sdist) == ("hatchling>=1.20", "hatch-vcs")
    legacy = _tar_sdist(tmp_path / "old-1.0.tar.gz", {"old-1.0/setup.py": "raise SystemExit('never run')\n"})
    assert sdist_build.declared_build_requires(legacy) == ("setuptools>=40.8.0",)
    with zipfile.ZipFile(tmp_path / "z-1.0.zip", "w") as archive:
        archive.writestr("z-1.0/pyproject.toml", '[build-system]\nrequires = ["flit_core>=3.2"]\n')
    assert sdist_build.declared_build_requires(tmp_path / "z-1.0.zip") == ("flit_core>=3.2",)


def test_missing_build_backend_is_named_before_anything_runs(tmp_path):
    sdist = _tar_sdist(tmp_path / "rusty-1.0.tar.gz", {
        "rusty-1.0/pyproject.toml": '[build-system]\nrequires = ["maturin>=1.0", "setuptools>=61", '
                                    '"tomli; python_version < \'3.11\'"]\n',
    })
    with pytest.raises(EnvironmentBuildError, match="maturin>=1.0") as caught:
        sdist_build.check_build_requires(sdist, {"setuptools": "84.2.1"})
    assert "setuptools" not in str(caught.value).split("lacks:")[1].split("(")[0]
    sdist_build.check_build_requires(_tar_sdist(tmp_path / "ok-1.0.tar.gz", {
        "ok-1.0/pyproject.toml": '[build-system]\nrequires = ["setuptools>=61"]\n',
    }), {"setuptools": "84.2.1"})


def test_an_sdist_only_pin_is_built_in_the_sandbox_and_installed_by_its_own_hash(tmp_path, monkeypatch):
    lock = Lock.from_text(f"six==1.17.0 \\\n    --hash=sha256:{SIX_SDIST_SHA}\n")
    environment = ensure_venv(lock, scoring_test_image(), cache_dir=tmp_path)
    six = environment.manifest.distribution("six")
    assert six.version == "1.17.0" and six.origin == f"built-from-sdist:{SIX_SDIST_SHA}"
    assert six.wheel_filename.endswith(".whl") and six.wheel_sha256 != SIX_SDIST_SHA
    stored = tmp_path / "wheelhouse" / "sha256" / six.wheel_sha256 / six.wheel_filename
    assert stored.is_file()
    records = list((tmp_path / "wheelhouse" / "built" / SIX_SDIST_SHA).glob("*.json"))
    assert len(records) == 1

    def no_sandbox(*args, **kwargs):
        raise AssertionError("a recorded build must not run again")

    monkeypatch.setattr(sdist_build, "run_step", no_sandbox)
    sdist = tmp_path / "wheelhouse" / "sha256" / SIX_SDIST_SHA / "six-1.17.0.tar.gz"
    again = sdist_build.build_sdist_wheel(sdist, context=environment.context,
                                          wheelhouse=sdist_build.Wheelhouse(tmp_path / "wheelhouse"),
                                          cache_dir=tmp_path)
    assert again == stored


def test_an_install_failure_names_the_project_whose_sdist_did_not_build():
    from bench.environment.sdist_build import unbuildable_project

    reason = ("install_failed: building cffi-1.15.1.tar.gz into a wheel failed (exit code 1): … compilation "
              "terminated.")
    assert unbuildable_project(reason) == "cffi"
    assert unbuildable_project("building Typed_Ast-1.4.0.zip into a wheel failed (exit code 1)") == "typed-ast"
    assert unbuildable_project("install_failed: editable install of repo failed (exit code 1)") is None
    assert unbuildable_project("building cffi-1.15.1.tar.gz produced 2 wheels, expected one") is None
