"""The test list follows the project's pytest configuration (read as data, never run)."""

from __future__ import annotations

from bench.testing.environment import write_files
from bench.mutate.files import list_test_files
from bench.mutate.pytest_config import read_exclusions


def test_norecursedirs_with_a_path_hides_a_folder_of_fixtures(tmp_path):
    write_files(tmp_path, {
        "pyproject.toml": '[tool.pytest.ini_options]\nnorecursedirs = ".git docs tests/mypy_test_cases"\n',
        "tests/test_a.py": "", "tests/conftest.py": "", "tests/mypy_test_cases/test_types.py": "",
        "docs/test_doc.py": "",
    })
    assert list_test_files(tmp_path) == ("tests/conftest.py", "tests/test_a.py")


def test_addopts_ignore_and_ignore_glob_are_honoured(tmp_path):
    write_files(tmp_path, {
        "setup.cfg": "[tool:pytest]\naddopts = -ra --ignore=tests/slow --ignore-glob='*_bench.py'\n",
        "tests/test_a.py": "", "tests/slow/test_s.py": "", "tests/test_x_bench.py": "",
    })
    assert list_test_files(tmp_path) == ("tests/test_a.py",)


def test_pytest_ini_wins_over_pyproject_and_defaults_apply_without_norecursedirs(tmp_path):
    write_files(tmp_path, {
        "pytest.ini": "[pytest]\naddopts = -q\n",
        "pyproject.toml": '[tool.pytest.ini_options]\nnorecursedirs = ["tests"]\n',
        "tests/test_a.py": "", "build/tests/test_b.py": "", ".hidden/test_c.py": "",
    })
    exclusions = read_exclusions(tmp_path)
    assert "tests" not in exclusions.norecursedirs
    assert list_test_files(tmp_path) == ("tests/test_a.py",)


def test_without_configuration_only_pytests_default_folders_are_skipped(tmp_path):
    write_files(tmp_path, {"tests/test_a.py": "", "venv/test_v.py": "", "pkg.egg/test_e.py": ""})
    assert list_test_files(tmp_path) == ("tests/test_a.py",)


def test_only_modules_pytest_collects_by_name_are_test_files(tmp_path):
    write_files(tmp_path, {
        "tests/__init__.py": "", "tests/helpers.py": "", "tests/typing/typing_example.py": "",
        "tests/test_a.py": "", "tests/b_test.py": "", "tests/conftest.py": "",
    })
    assert list_test_files(tmp_path) == ("tests/b_test.py", "tests/conftest.py", "tests/test_a.py")


def test_python_files_from_the_configuration_replaces_the_default(tmp_path):
    write_files(tmp_path, {
        "tox.ini": "[pytest]\npython_files = check_*.py\n",
        "tests/check_a.py": "", "tests/test_b.py": "",
    })
    assert list_test_files(tmp_path) == ("tests/check_a.py",)
