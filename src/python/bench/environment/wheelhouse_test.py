import os

import pytest

from bench.environment.lock import Lock
from bench.environment.manifest import InterpreterInfo
from bench.environment.wheelhouse import StoredDistribution, Target, Wheelhouse, file_sha256, materialise
from bench.errors import EnvironmentBuildError

SIX_WHEEL = "six-1.17.0-py2.py3-none-any.whl"
SIX_WHEEL_SHA = "4721f391ed90541fddacab5acf947aa0d3dc7d27b2e1e8eda2be8970586c3274"
SIX_SDIST_SHA = "ff70335d468e7eb6ec65b95b99d3a2836546063f63acc5171de367e834932a81"
SIX_WHEEL_URL = (
    "https://files.pythonhosted.org/packages/b7/ce/149a00dd41f10bc29e5921b496af8b574d8413afcd5e30dfa0ed46c2cc5e/"
    + SIX_WHEEL
)
TRIXIE = InterpreterInfo("cpython", "3.13.5", "cpython-313-x86_64-linux-gnu", "linux-x86_64", "x86_64", "glibc", "2.41")


@pytest.fixture(scope="module")
def target():
    return Target.for_interpreter(TRIXIE)


def test_target_prefers_the_most_specific_fitting_wheel(target):
    native = target.rank("numpy-2.3.0-cp313-cp313-manylinux_2_17_x86_64.manylinux2014_x86_64.whl")
    abi3 = target.rank("cryptography-45.0.0-cp311-abi3-manylinux_2_34_x86_64.whl")
    pure = target.rank(SIX_WHEEL)
    assert native is not None and abi3 is not None and pure is not None
    assert native < abi3 < pure


@pytest.mark.parametrize(
    "filename",
    [
        "numpy-2.3.0-cp312-cp312-manylinux_2_17_x86_64.whl",  # another Python
        "numpy-2.3.0-cp313-cp313t-manylinux_2_17_x86_64.whl",  # free-threaded ABI
        "numpy-2.3.0-cp313-cp313-musllinux_1_2_x86_64.whl",  # musl
        "numpy-2.3.0-cp313-cp313-manylinux_2_42_x86_64.whl",  # newer glibc than the image's
        "numpy-2.3.0-cp313-cp313-manylinux_2_17_aarch64.whl",  # another machine
        "numpy-2.3.0-cp313-cp313-win_amd64.whl",
        "not-a-wheel.tar.gz",
    ],
)
def test_target_refuses_wheels_that_do_not_fit(target, filename):
    assert target.rank(filename) is None


def test_target_evaluates_markers_for_the_image_interpreter_not_the_host(target):
    assert target.marker_holds('python_version >= "3.13"')
    assert not target.marker_holds('python_version < "3.12"')
    assert target.marker_holds("")


def test_choose_prefers_the_wheel_among_pinned_files(tmp_path, target):
    house = Wheelhouse(tmp_path)
    chosen = house.choose("six", "1.17.0", (SIX_SDIST_SHA, SIX_WHEEL_SHA), target)
    assert (chosen.filename, chosen.sha256) == (SIX_WHEEL, SIX_WHEEL_SHA)
    only_sdist = house.choose("six", "1.17.0", (SIX_SDIST_SHA,), target)
    assert only_sdist.filename == "six-1.17.0.tar.gz"


def test_wheelhouse_refuses_a_lock_hash_no_index_file_has(tmp_path, target):
    lock = Lock.from_text(f"six==1.17.0 --hash=sha256:{'0' * 64}\n")
    with pytest.raises(EnvironmentBuildError, match="hash mismatch refused"):
        Wheelhouse(tmp_path).ensure(lock, target)
    assert not (tmp_path / "sha256").exists() or not any((tmp_path / "sha256").iterdir())


def test_wheelhouse_refuses_a_download_whose_content_does_not_match_the_hash(tmp_path):
    house = Wheelhouse(tmp_path)
    wrong = "0" * 64
    with pytest.raises(EnvironmentBuildError, match="hash mismatch"):
        house.fetch(SIX_WHEEL_URL, wrong, SIX_WHEEL)
    assert not house.has(wrong, SIX_WHEEL)
    assert [p.name for p in (tmp_path / "sha256" / wrong).iterdir()] == []  # no partial file left behind


def test_wheelhouse_stores_by_hash_and_fetches_once(tmp_path, target):
    house = Wheelhouse(tmp_path)
    lock = Lock.from_text(f"six==1.17.0 \\\n    --hash=sha256:{SIX_SDIST_SHA} \\\n    --hash=sha256:{SIX_WHEEL_SHA}\n")
    (stored,) = house.ensure(lock, target)
    assert stored.path == tmp_path / "sha256" / SIX_WHEEL_SHA / SIX_WHEEL
    assert (stored.origin, stored.sha256) == ("lock", SIX_WHEEL_SHA)
    assert file_sha256(stored.path) == SIX_WHEEL_SHA
    before = stored.path.stat().st_mtime_ns
    assert house.fetch("https://invalid.invalid/never-fetched", SIX_WHEEL_SHA, SIX_WHEEL) == stored.path
    assert stored.path.stat().st_mtime_ns == before


def test_wheelhouse_without_builder_refuses_an_sdist_only_pin(tmp_path, target):
    lock = Lock.from_text(f"six==1.17.0 --hash=sha256:{SIX_SDIST_SHA}\n")
    with pytest.raises(EnvironmentBuildError, match="only an sdist"):
        Wheelhouse(tmp_path).ensure(lock, target)


def test_materialise_links_exactly_the_chosen_files_and_rechecks_hashes(tmp_path):
    house = Wheelhouse(tmp_path / "store")
    source = tmp_path / "demo-1.0-py3-none-any.whl"
    source.write_bytes(b"not really a wheel")
    path = house.add(source)
    stored = StoredDistribution("demo", "1.0", "", path.name, path.parent.name, path, "lock")
    links = materialise((stored,), tmp_path / "links")
    assert sorted(os.listdir(links)) == ["demo-1.0-py3-none-any.whl"]
    assert (links / path.name).read_bytes() == b"not really a wheel"
    path.chmod(0o644)
    os.unlink(links / path.name)
    path.write_bytes(b"tampered")
    with pytest.raises(EnvironmentBuildError, match="no longer matches"):
        materialise((stored,), tmp_path / "links2")


def test_store_add_refuses_an_unexpected_hash(tmp_path):
    source = tmp_path / "x-1.0-py3-none-any.whl"
    source.write_bytes(b"abc")
    with pytest.raises(EnvironmentBuildError):
        Wheelhouse(tmp_path / "store").add(source, expected_sha256="1" * 64)
