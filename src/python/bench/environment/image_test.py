import hashlib
import io
import json
import os
import stat
import tarfile
from pathlib import Path

import pytest

from bench.environment import _mmdebstrap, image
from bench.environment.image import Image, ManifestDiff, build_image, diff_manifests, unpack_image
from bench.errors import ImageError

REPO_IMAGES = Path(__file__).resolve().parents[4] / "images"


def _recipe(folder: Path, **overrides) -> None:
    data = {"suite": "trixie", "variant": "extract", "mirror": "http://deb.debian.org/debian",
            "architecture": "amd64", "include": ["base-files"], "source_date_epoch": 1735689600}
    data.update(overrides)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "recipe.json").write_text(json.dumps(data))


def _fake_rootfs_tar(path: Path, status: str) -> str:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as archive:
        for name, data in (("./etc/debian_version", b"13.0\n"), ("./var/lib/dpkg/status", status.encode())):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mode = 0o644
            archive.addfile(info, io.BytesIO(data))
        usr = tarfile.TarInfo("./usr/bin")
        usr.type = tarfile.DIRTYPE
        usr.mode = 0o755
        archive.addfile(usr)
    path.write_bytes(buffer.getvalue())
    return "sha256:" + hashlib.sha256(buffer.getvalue()).hexdigest()


STATUS = """Package: zlib1g
Status: install ok installed
Version: 1:1.3

Package: apt
Status: install ok installed
Version: 3.0.4

Package: gone
Status: deinstall ok config-files
Version: 1.0
"""


# --- manifest diffs -----------------------------------------------------------------------------------------


def test_diff_manifests_names_added_removed_and_changed_packages():
    old = ("apt=3.0.3", "bash=5.2", "libc6=2.41-1")
    new = ("apt=3.0.4", "libc6=2.41-1", "zlib1g=1:1.3")
    diff = diff_manifests(old, new)
    assert diff == ManifestDiff(added=("zlib1g=1:1.3",), removed=("bash=5.2",), changed=(("apt", "3.0.3", "3.0.4"),))
    assert diff.describe() == "1 changed, 1 added, 1 removed: apt 3.0.3 -> 3.0.4, +zlib1g=1:1.3, -bash=5.2"


def test_identical_manifests_give_an_empty_diff():
    diff = diff_manifests(("a=1", "b=2"), ("b=2", "a=1"))
    assert diff.empty
    assert diff.describe() == "same packages and versions"


def test_dpkg_query_output_keeps_installed_packages_sorted():
    text = "ii |zlib1g=1:1.3\nrc |gone=1.0\nii |apt=3.0.4\n"
    assert _mmdebstrap.parse_query_output(text) == ("apt=3.0.4", "zlib1g=1:1.3")


def test_status_file_manifest_matches_dpkg_query_format():
    assert _mmdebstrap.parse_status_file(STATUS) == ("apt=3.0.4", "zlib1g=1:1.3")


def test_mmdebstrap_argv_pins_format_variant_and_manifest_hook(tmp_path):
    argv = _mmdebstrap.build_argv(suite="trixie", variant="minbase", mirror="http://m/debian", architecture="amd64",
                                  include=("python3", "git"), tar_path=tmp_path / "o.tar",
                                  manifest_path=tmp_path / "m f.txt")
    assert argv[:4] == ("mmdebstrap", "--variant=minbase", "--architectures=amd64", "--format=tar")
    assert "--include=python3,git" in argv
    assert argv[-3:] == ("trixie", str(tmp_path / "o.tar"), "http://m/debian")
    hook = next(a for a in argv if a.startswith("--customize-hook="))
    assert "--admindir=\"$1/var/lib/dpkg\"" in hook and f"'{tmp_path / 'm f.txt'}'" in hook
    assert _mmdebstrap.build_env(42)["SOURCE_DATE_EPOCH"] == "42"


def test_build_env_fixes_pythons_bytecode_writing_and_drops_the_hosts_python_variables(monkeypatch):
    monkeypatch.delenv("PYTHONDONTWRITEBYTECODE", raising=False)
    monkeypatch.setenv("PYTHONPATH", "src/python")
    monkeypatch.setenv("PYTHONHASHSEED", "3")
    env = _mmdebstrap.build_env(42)
    assert sorted(key for key in env if key.startswith("PYTHON")) == ["PYTHONDONTWRITEBYTECODE"]
    assert env["PYTHONDONTWRITEBYTECODE"] == "1" and env["LC_ALL"] == "C.UTF-8"


# --- pins, cache reuse and mismatch reports (no network) ----------------------------------------------------


def test_cached_tar_with_pinned_digest_is_reused_without_building(tmp_path, monkeypatch):
    root, cache = tmp_path / "repo", tmp_path / "cache"
    _recipe(root / "images" / "tiny")
    (cache / "images").mkdir(parents=True)
    staging = tmp_path / "t.tar"
    digest = _fake_rootfs_tar(staging, STATUS)
    tar = cache / "images" / f"{digest.removeprefix('sha256:')}.tar"
    os.replace(staging, tar)
    image.write_pin(root / "images" / "tiny", digest, ("apt=3.0.4", "zlib1g=1:1.3"))
    monkeypatch.setattr(image, "_build", lambda *a: pytest.fail("must not build"))
    built = build_image("tiny", root=root, cache_dir=cache)
    assert (built.digest, built.tar_path) == (digest, tar)
    assert built.manifest == ("apt=3.0.4", "zlib1g=1:1.3")  # read from the tar's dpkg status, then remembered
    assert tar.with_suffix(".manifest").read_text() == "apt=3.0.4\nzlib1g=1:1.3\n"
    assert built.recipe_sha256 == hashlib.sha256((root / "images/tiny/recipe.json").read_bytes()).hexdigest()


def test_tampered_cached_tar_is_not_reused(tmp_path):
    root, cache = tmp_path / "repo", tmp_path / "cache"
    _recipe(root / "images" / "tiny")
    (cache / "images").mkdir(parents=True)
    digest = _fake_rootfs_tar(tmp_path / "t.tar", STATUS)
    tar = cache / "images" / f"{digest.removeprefix('sha256:')}.tar"
    tar.write_bytes((tmp_path / "t.tar").read_bytes() + b"tampered")
    image.write_pin(root / "images" / "tiny", digest, ())
    with pytest.raises(ImageError, match="is not in the cache"):
        build_image("tiny", root=root, cache_dir=cache, reuse_only=True)


def test_build_differing_from_pin_reports_package_changes(tmp_path, monkeypatch):
    root, cache = tmp_path / "repo", tmp_path / "cache"
    folder = root / "images" / "tiny"
    _recipe(folder)
    image.write_pin(folder, "sha256:" + "0" * 64, ("apt=3.0.3", "bash=5.2"))
    fake_tar = cache / "images" / ("1" * 64 + ".tar")
    monkeypatch.setattr(image, "_build", lambda recipe, c: ("sha256:" + "1" * 64, fake_tar, ("apt=3.0.4",)))
    with pytest.raises(ImageError) as caught:
        build_image("tiny", root=root, cache_dir=cache)
    message = str(caught.value)
    assert f"built sha256:{'1' * 64} but sha256:{'0' * 64} is pinned" in message
    assert "apt 3.0.3 -> 3.0.4" in message and "-bash=5.2" in message and "--update" in message
    assert image.read_pin(folder) == ("sha256:" + "0" * 64, ("apt=3.0.3", "bash=5.2"))  # the pin is untouched


def test_update_repins_digest_and_manifest(tmp_path, monkeypatch):
    root, cache = tmp_path / "repo", tmp_path / "cache"
    folder = root / "images" / "tiny"
    _recipe(folder)
    image.write_pin(folder, "sha256:" + "0" * 64, ("apt=3.0.3",))
    tar = cache / "images" / ("2" * 64 + ".tar")
    monkeypatch.setattr(image, "_build", lambda recipe, c: ("sha256:" + "2" * 64, tar, ("apt=3.0.4",)))
    built = build_image("tiny", root=root, cache_dir=cache, update=True)
    assert built.digest == "sha256:" + "2" * 64
    assert (folder / "digest").read_text() == f"sha256:{'2' * 64}\n"
    assert (folder / "manifest.txt").read_text() == "apt=3.0.4\n"


def test_unpinned_image_is_an_error_naming_the_built_digest(tmp_path, monkeypatch):
    root, cache = tmp_path / "repo", tmp_path / "cache"
    _recipe(root / "images" / "tiny")
    monkeypatch.setattr(image, "_build", lambda recipe, c: ("sha256:" + "3" * 64, cache / "x.tar", ()))
    with pytest.raises(ImageError, match=f"no pinned digest \\(built sha256:{'3' * 64}\\)"):
        build_image("tiny", root=root, cache_dir=cache)


def test_recipe_with_wrong_types_is_rejected(tmp_path):
    _recipe(tmp_path / "images" / "bad", source_date_epoch="yesterday")
    with pytest.raises(ImageError, match="'source_date_epoch' must be a int"):
        build_image("bad", root=tmp_path, cache_dir=tmp_path / "c")


def test_unknown_image_name_is_an_error(tmp_path):
    with pytest.raises(ImageError, match="unknown image 'nope'"):
        build_image("nope", root=tmp_path, cache_dir=tmp_path / "c")


def test_unpack_is_world_traversable_and_done_once(tmp_path):
    cache = tmp_path / "cache"
    tar = tmp_path / "r.tar"
    digest = _fake_rootfs_tar(tar, STATUS)
    img = Image("tiny", "r", digest, tar, ())
    rootfs = unpack_image(img, cache_dir=cache)
    assert rootfs == cache / "images" / "rootfs" / digest.removeprefix("sha256:")
    assert (rootfs / "etc/debian_version").read_text() == "13.0\n"
    assert stat.S_IMODE(rootfs.stat().st_mode) == 0o755
    (rootfs / "marker").write_text("same tree")
    assert unpack_image(img, cache_dir=cache) == rootfs and (rootfs / "marker").exists()
    assert [p.name for p in rootfs.parent.iterdir()] == [rootfs.name]  # no temp dirs left behind


# --- the repository's pinned images -------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["trixie-py313", "trixie-py313-slim"])
def test_repository_images_are_pinned(name):
    folder = REPO_IMAGES / name
    recipe, _ = image.load_recipe(folder)
    digest, manifest = image.read_pin(folder)
    assert recipe.suite == "trixie" and recipe.variant == "minbase" and recipe.architecture == "amd64"
    assert digest is not None and len(digest) == 71 and digest.startswith("sha256:")
    assert manifest == tuple(sorted(manifest)) and any(line.startswith("python3.13=") for line in manifest)


# --- one real build (small: the "extract" variant of base-files, ~10-20 s) ---------------------------------


def test_real_build_is_reproducible_and_mismatch_names_the_rebuilt_digest(tmp_path, monkeypatch):
    root, cache = tmp_path / "repo", tmp_path / "cache"
    folder = root / "images" / "tiny"
    _recipe(folder)
    first = build_image("tiny", root=root, cache_dir=cache, update=True)
    assert image.read_pin(folder)[0] == first.digest
    assert image.file_digest(first.tar_path) == first.digest
    # Pin something else: a fresh build must come out as the first digest again and be reported as a mismatch.
    image.write_pin(folder, "sha256:" + "0" * 64, ("base-files=0.0",))
    with pytest.raises(ImageError) as caught:
        build_image("tiny", root=root, cache_dir=cache, rebuild=True)
    assert f"built {first.digest} but sha256:{'0' * 64} is pinned" in str(caught.value)
    image.write_pin(folder, first.digest, first.manifest)
    monkeypatch.setattr(_mmdebstrap, "run", lambda *a: pytest.fail("must reuse the cached tar"))
    again = build_image("tiny", root=root, cache_dir=cache)
    assert again.digest == first.digest
    assert (unpack_image(again, cache_dir=cache) / "etc/debian_version").is_file()


def test_repository_image_digest_does_not_depend_on_the_callers_python_variables(tmp_path, monkeypatch):
    """Regression: built from a shell without PYTHONDONTWRITEBYTECODE (as under `./pants test`), the scoring
    image came out with other bytes in five pycs of Debian's py3compile and failed its pin on a fresh machine.
    Rebuilt here: the slim image, which carries the same python3 and py3compile as trixie-py313 with fewer
    packages around them (no C toolchain), so the check does not rebuild the full image a second time."""
    monkeypatch.delenv("PYTHONDONTWRITEBYTECODE", raising=False)
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    pinned, _ = image.read_pin(REPO_IMAGES / "trixie-py313-slim")
    built = build_image("trixie-py313-slim", root=REPO_IMAGES.parent, cache_dir=tmp_path / "cache", rebuild=True)
    assert built.digest == pinned
