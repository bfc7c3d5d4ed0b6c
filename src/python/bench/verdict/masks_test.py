from pathlib import Path

from bench.sandbox.protocol import Mount
from bench.verdict.masks import masks_for, task_packages


def test_task_packages_are_top_level_import_names():
    assert task_packages(["src/click/core.py", "src/click/types.py"]) == ("click",)
    assert task_packages(["caesar.py", "more_itertools/more.py"]) == ("caesar", "more_itertools")


def _touch(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("")


def test_masks_cover_pip_vendored_copies_installed_releases_and_ensurepip(tmp_path):
    venv = tmp_path / "venv"
    site = venv / "lib" / "python3.13" / "site-packages"
    for rel in ("pip/__init__.py", "pip/_vendor/idna/core.py", "setuptools/_vendor/idna/core.py",
                "setuptools/_vendor/more_itertools/more.py", "idna/core.py", "requests/__init__.py",
                "pkg_resources/_vendor/idna.py"):
        _touch(site / rel)
    image = tmp_path / "image"
    _touch(image / "usr" / "lib" / "python3.13" / "ensurepip" / "_bundled" / "pip.whl")
    _touch(image / "usr" / "lib" / "python3.13" / "json" / "__init__.py")
    _touch(image / "usr" / "share" / "python-wheels" / "pip-25.1.1-py3-none-any.whl")
    masks = masks_for((Mount(venv, "/env/venv"),), image, ("idna",), empty_dir=tmp_path / "e",
                      empty_file=tmp_path / "f")
    covered = {(m.sandbox_path, m.host_path.name) for m in masks}
    prefix = "/env/venv/lib/python3.13/site-packages"
    assert covered == {
        (f"{prefix}/pip", "e"), (f"{prefix}/idna", "e"), (f"{prefix}/setuptools/_vendor/idna", "e"),
        (f"{prefix}/pkg_resources/_vendor/idna.py", "f"), ("/usr/lib/python3.13/ensurepip/_bundled", "e"),
        ("/usr/share/python-wheels", "e"),
    }
    assert all(not m.writable for m in masks)


def test_writable_mounts_are_not_masked(tmp_path):
    _touch(tmp_path / "w" / "site-packages" / "pip" / "__init__.py")
    (tmp_path / "image" / "usr").mkdir(parents=True)
    masks = masks_for((Mount(tmp_path / "w", "/w", writable=True),), tmp_path / "image", ("x",),
                      empty_dir=tmp_path / "e", empty_file=tmp_path / "f")
    assert masks == ()


def test_only_a_read_only_mask_may_cover_part_of_the_image(tmp_path):
    import pytest

    from bench.errors import SandboxError
    from bench.sandbox._requests import validate_mount

    validate_mount(Mount(tmp_path, "/usr/share/python-wheels", mask=True))
    for mount in (Mount(tmp_path, "/usr/share/python-wheels"),
                  Mount(tmp_path, "/usr/share/python-wheels", writable=True, mask=True),
                  Mount(tmp_path, "/usr", mask=True)):
        with pytest.raises(SandboxError, match="shadow"):
            validate_mount(mount)
