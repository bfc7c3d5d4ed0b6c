from __future__ import annotations

from pathlib import Path

import pytest

from bench.attempt import failing_tests
from bench.attempt.code_map import CodeMap, map_code
from bench.attempt.localize import RANK_REASONS, Reached, imported_names, localize, traceback_lines

# Line numbers matter: tracebacks below point into these files.
CORE = '''\
from pkg.util import check, normalise


class Parser:
    """Parses."""

    def __init__(self, text):
        self.text = normalise(text)

    def run(self):
        return parse(self.text)


def parse(text):
    check(text)
    return text.split(",")


def unused():
    return 0
'''

UTIL = '''\
def check(text):
    if not text:
        raise ValueError("empty")


def normalise(text):
    return strip_all(text)


def strip_all(text):
    return text.strip()


def lonely():
    return 1
'''

TEST = '''\
from pkg.core import Parser
from pkg import util
import pkg.util


def test_parse():
    assert Parser("").run() == [""]


def test_missing():
    assert nonexistent_thing() == lonely
'''

PYTEST_LONG = """\
___________________________________ test_parse ___________________________________

    def test_parse():
>       assert Parser("").run() == [""]

tests/test_x.py:7: 
_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _
pkg/core.py:11: in run
    return parse(self.text)
pkg/core.py:15: in parse
    check(text)
_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _

    def check(text):
        if not text:
>           raise ValueError("empty")
E           ValueError: empty

pkg/util.py:3: ValueError
=========================== short test summary info ============================
FAILED tests/test_x.py::test_parse - ValueError: empty
"""

PYTHON_FORMAT = """\
Traceback (most recent call last):
  File "/work/tests/test_x.py", line 7, in test_parse
    assert Parser("").run() == [""]
  File "/work/pkg/core.py", line 11, in run
    return parse(self.text)
  File "/work/pkg/core.py", line 15, in parse
    check(text)
  File "/work/pkg/util.py", line 3, in check
    raise ValueError("empty")
ValueError: empty
"""

SOURCES = ("pkg/core.py", "pkg/util.py")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg/__init__.py").write_text("")
    (tmp_path / "pkg/core.py").write_text(CORE)
    (tmp_path / "pkg/util.py").write_text(UTIL)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests/test_x.py").write_text(TEST)
    return tmp_path


def maps_of(repo: Path) -> dict[str, CodeMap]:
    maps = {}
    for path in SOURCES:
        code = map_code(path, (repo / path).read_text())
        assert code is not None
        maps[path] = code
    return maps


def failing_source(repo: Path, *names: str) -> str:
    refs = [failing_tests.parse_test_id(f"tests/test_x.py::{name}") for name in names]
    return failing_tests.extract((repo / "tests/test_x.py").read_text(), refs)


def ranked(result: tuple[Reached, ...]) -> list[tuple[str, str, int]]:
    return [(r.path, r.qualname, r.rank) for r in result]


EXPECTED_WITH_TRACEBACK = [
    ("pkg/util.py", "check", 0),  # innermost frame first
    ("pkg/core.py", "parse", 0),
    ("pkg/core.py", "Parser.run", 0),
    ("pkg/core.py", "Parser", 1),  # imported by the test file from pkg
    ("pkg/core.py", "Parser.__init__", 1),  # comes with its class, at the class's rank
    ("pkg/util.py", "normalise", 3),  # called by Parser.__init__
    ("pkg/util.py", "strip_all", 4),  # called by normalise
]


def test_imported_names_are_those_from_the_tasks_packages(repo: Path):
    source = (repo / "tests/test_x.py").read_text()
    assert imported_names(source, frozenset({"pkg"})) == frozenset({"Parser", "util"})
    assert imported_names(source, frozenset({"other"})) == frozenset()
    aliased = "from pkg.core import parse as p, Parser\nfrom os import path\nfrom . import sibling\n"
    assert imported_names(aliased, frozenset({"pkg"})) == frozenset({"parse", "Parser"})
    assert imported_names("def broken(:\n", frozenset({"pkg"})) == frozenset()


def test_pytest_long_traceback_lines_are_innermost_first_and_only_editable_files():
    assert traceback_lines((PYTEST_LONG,), SOURCES) == (
        ("pkg/util.py", 3),
        ("pkg/core.py", 15),
        ("pkg/core.py", 11),
    )


def test_python_traceback_with_absolute_sandbox_paths_maps_to_editable_files():
    assert traceback_lines((PYTHON_FORMAT,), SOURCES) == (
        ("pkg/util.py", 3),
        ("pkg/core.py", 15),
        ("pkg/core.py", 11),
    )


def test_traceback_lines_keep_failures_in_order_and_drop_repeats():
    second = 'File "/work/pkg/util.py", line 7, in normalise\nFile "/work/pkg/core.py", line 8, in __init__\n'
    assert traceback_lines((PYTHON_FORMAT, second, PYTEST_LONG, None, ""), SOURCES) == (
        ("pkg/util.py", 3),
        ("pkg/core.py", 15),
        ("pkg/core.py", 11),
        ("pkg/core.py", 8),  # the second failure, innermost first
        ("pkg/util.py", 7),
    )


def test_traceback_frames_of_other_files_are_ignored():
    text = ('File "/usr/lib/python3.11/json/decoder.py", line 3, in decode\n'
            "vendor/mypkg/core.py:15: in parse\n"
            "tests/test_x.py:7: \n")
    assert traceback_lines((text,), SOURCES) == ()


@pytest.mark.parametrize("traceback", [PYTEST_LONG, PYTHON_FORMAT], ids=["pytest-long", "python"])
def test_localize_ranks_traceback_imports_names_and_callees(repo: Path, traceback: str):
    result = localize(
        maps_of(repo),
        failing_source=failing_source(repo, "test_parse"),
        test_imports=imported_names((repo / "tests/test_x.py").read_text(), frozenset({"pkg"})),
        failure_texts=(traceback,),
    )
    assert ranked(result) == EXPECTED_WITH_TRACEBACK
    assert [r.reason for r in result][:4] == ["traceback", "traceback", "traceback", "imported by the tests"]


def test_localize_without_traceback_starts_from_the_names_the_tests_use(repo: Path):
    result = localize(
        maps_of(repo),
        failing_source=failing_source(repo, "test_parse"),
        test_imports=frozenset({"Parser", "util"}),
        failure_texts=(),
    )
    assert ranked(result) == [
        ("pkg/core.py", "Parser", 1),
        ("pkg/core.py", "Parser.__init__", 1),
        ("pkg/core.py", "Parser.run", 2),  # `.run()` in the test
        ("pkg/util.py", "normalise", 3),  # Parser.__init__ calls it
        ("pkg/core.py", "parse", 3),  # Parser.run calls it
        ("pkg/util.py", "strip_all", 4),
        ("pkg/util.py", "check", 4),
    ]


def test_names_used_but_not_imported_rank_two_and_undefined_names_are_ignored(repo: Path):
    # test_missing uses `nonexistent_thing` (defined nowhere) and `lonely` (defined, not imported)
    result = localize(
        maps_of(repo),
        failing_source=failing_source(repo, "test_missing"),
        test_imports=frozenset({"Parser", "util"}),
        failure_texts=(),
    )
    assert ranked(result) == [("pkg/util.py", "lonely", 2)]


def test_a_class_enclosing_a_traceback_line_brings_its_init_at_rank_zero(repo: Path):
    result = localize(
        maps_of(repo),
        failing_source="",
        test_imports=frozenset(),
        failure_texts=("pkg/core.py:5: in Parser\n",),  # the class docstring's line
    )
    assert ranked(result) == [
        ("pkg/core.py", "Parser", 0),
        ("pkg/core.py", "Parser.__init__", 0),
        ("pkg/util.py", "normalise", 3),
        ("pkg/util.py", "strip_all", 4),
    ]


def test_a_traceback_line_outside_every_definition_reaches_nothing(repo: Path):
    result = localize(maps_of(repo), failing_source="", test_imports=frozenset(),
                      failure_texts=("pkg/core.py:1: in <module>\n", "pkg/core.py:99: in gone\n"))
    assert result == ()


def test_localize_is_deterministic(repo: Path):
    def run():
        return localize(maps_of(repo), failing_source=failing_source(repo, "test_parse", "test_missing"),
                        test_imports=frozenset({"Parser"}), failure_texts=(PYTEST_LONG,))

    first = run()
    assert first == run()
    assert ranked(first) == [*EXPECTED_WITH_TRACEBACK[:5], ("pkg/util.py", "lonely", 2),
                             *EXPECTED_WITH_TRACEBACK[5:]]


def test_rank_reasons_name_every_rank():
    assert Reached("a.py", "f", 3).reason == "called by reached code"
    assert len(RANK_REASONS) == 5
