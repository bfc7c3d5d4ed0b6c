"""Tests of the library / test file selection of an unpacked release."""

from __future__ import annotations

from pathlib import Path

from bench.mutate.files import glob_regex, list_library_files, list_test_files, top_level_packages


def _touch(root: Path, *paths: str) -> Path:
    for path in paths:
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text("x = 1\n")
    return root


def test_glob_double_star_spans_zero_or_more_directories():
    assert glob_regex("**/tests/**").match("tests/a.py")
    assert glob_regex("**/tests/**").match("src/pkg/tests/sub/a.py")
    assert not glob_regex("**/tests/**").match("src/pkg/testsuite.py")
    assert glob_regex("src/**/*.py").match("src/a.py") and glob_regex("src/**/*.py").match("src/p/q/a.py")
    assert not glob_regex("*.py").match("p/a.py")


def test_src_layout(tmp_path):
    tree = _touch(
        tmp_path,
        "src/lib/__init__.py",
        "src/lib/core.py",
        "src/lib/tests/test_core.py",
        "src/lib/_vendor/six.py",
        "tests/conftest.py",
        "tests/test_lib.py",
        "docs/conf.py",
        "setup.py",
    )
    assert list_library_files(tree) == ("src/lib/__init__.py", "src/lib/core.py")
    assert list_test_files(tree) == ("src/lib/tests/test_core.py", "tests/conftest.py", "tests/test_lib.py")


def test_flat_package_and_single_module_layouts(tmp_path):
    flat = _touch(tmp_path / "flat", "more/__init__.py", "more/recipes.py", "noxfile.py", "test_more.py")
    assert top_level_packages(flat) == ("more",)
    assert list_library_files(flat) == ("more/__init__.py", "more/recipes.py")
    single = _touch(tmp_path / "single", "six.py", "test_six.py", "setup.py", "conftest.py", "documentation/conf.py")
    assert top_level_packages(single) == ("six",)
    assert list_library_files(single) == ("six.py",)
    assert list_test_files(single) == ("conftest.py", "test_six.py")


def test_explicit_include_and_exclude(tmp_path):
    tree = _touch(tmp_path, "pkg/__init__.py", "pkg/a.py", "pkg/b.py")
    assert list_library_files(tree, include=("pkg/*.py",), exclude=("pkg/b.py",)) == ("pkg/__init__.py", "pkg/a.py")


def test_symlinked_and_cached_files_are_ignored(tmp_path):
    tree = _touch(tmp_path, "pkg/__init__.py", "pkg/a.py", "pkg/__pycache__/a.py")
    (tree / "pkg" / "alias.py").symlink_to("a.py")
    assert list_library_files(tree) == ("pkg/__init__.py", "pkg/a.py")
