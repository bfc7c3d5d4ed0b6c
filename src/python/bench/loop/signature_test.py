from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.loop.signature import (
    candidate_digest,
    failure_signature,
    normalise_error_line,
    top_error_line,
)

SETTINGS = settings(max_examples=300, deadline=None)


# --- normalise_error_line -------------------------------------------------------------------------------------


def test_normalise_strips_absolute_paths_to_last_component():
    line = "ImportError: cannot import name 'f' from 'pkg.mod' (/tmp/ws-81f2/src/pkg/mod.py)"
    assert normalise_error_line(line) == "ImportError: cannot import name 'f' from 'pkg.mod' (mod.py)"


def test_normalise_keeps_relative_paths_and_urls():
    line = "OSError: src/pkg/data.txt not found at http://example.org/a/b"
    assert normalise_error_line(line) == line


def test_normalise_replaces_memory_addresses():
    line = "AssertionError: <pkg.Node object at 0x7f3a9c2b10d0> != <pkg.Node object at 0x7f3a9c2b1f40>"
    assert normalise_error_line(line) == "AssertionError: <pkg.Node object at 0x_> != <pkg.Node object at 0x_>"


# Two runs of the same candidate print the same failure with different process addresses or ids; each case:
# (first run's line, second run's line, what both normalise to, a look-alike that must stay as it is).
RUN_DEPENDENT = {
    "address tail cut by pytest's repr truncation": (
        "assert '<test_defaul...7fc82839d550>' == \"<class 'test...lts._Marker'>\"",
        "assert '<test_defaul...7f03cdba5550>' == \"<class 'test...lts._Marker'>\"",
        "assert '<test_defaul...0x_>' == \"<class 'test...lts._Marker'>\"",
        "assert 'a...faced>' == 'x'"),  # a word of hex letters
    "address cut between its 0 and x (toolz's TestCustomMapping)": (
        "assert <test_dicttoo...x7ff8181cdae0> == <test_dicttoo...x7ff8181cfe30>",
        "assert <test_dicttoo...x7f52f2725ae0> == <test_dicttoo...x7f52f2727e30>",
        "assert <test_dicttoo...0x_> == <test_dicttoo...0x_>",
        "assert 'a...xface>' == 'x'"),
    "jinja2's unnamed template id": (
        "assert [<Template memory:7feed0d0ce90>] is <Template memory:7feed0d0ce90>",
        "assert [<Template memory:7f879bec8e90>] is <Template memory:7f879bec8e90>",
        "assert [<Template memory:_>] is <Template memory:_>",
        "<Template 'memory:ab'>"),  # too short to be an id
}


@pytest.mark.parametrize("first, second, normalised, kept", RUN_DEPENDENT.values(), ids=RUN_DEPENDENT.keys())
def test_normalise_replaces_run_dependent_ids(first, second, normalised, kept):
    assert normalise_error_line(first) == normalise_error_line(second) == normalised
    assert normalise_error_line(kept) == kept
    assert normalise_error_line("assert 'abc...def>' == 'x'") == "assert 'abc...def>' == 'x'"  # too short


def test_normalise_replaces_decimal_ids_in_reprs():
    line = "assert [<cp33-cp33-plat @ 140650567543104>] == [<cp33-cp33-plat @ 140650567545344>]"
    assert normalise_error_line(line) == "assert [<cp33-cp33-plat @ id_>] == [<cp33-cp33-plat @ id_>]"
    assert normalise_error_line("assert 'user@1234>' == 'x'") == "assert 'user@1234>' == 'x'"  # too short


def test_normalise_replaces_literals_of_undecodable_bytes():
    first = "AssertionError: assert '\ufffd\ufffd30\ufffdJox' not in '[Errno Expe...\ufffd~Dq<,\ufffd(: 0'"
    second = "AssertionError: assert '\ufffdJc\ufffdIZr' not in \"[Errno Expe...\ufffd\ufffdXv: 0\""
    assert normalise_error_line(first) == "AssertionError: assert '<binary>' not in '<binary>'"
    assert normalise_error_line(second) == normalise_error_line(first)
    assert normalise_error_line("assert 'caf\u00e9' == 'cafe'") == "assert 'caf\u00e9' == 'cafe'"


def test_normalise_keeps_short_hex_literals_in_messages():
    assert normalise_error_line("assert 0x10 == 17") == "assert 0x10 == 17"


def test_normalise_drops_location_line_numbers_but_keeps_message_numbers():
    assert normalise_error_line("/w/tests/test_x.py:57: assert 3 == 4") == "test_x.py: assert 3 == 4"
    assert normalise_error_line('File "/w/mod.py", line 12, in f') == 'File "mod.py", line _, in f'
    assert normalise_error_line("SyntaxError: invalid syntax (mod.py, line 3)") == (
        "SyntaxError: invalid syntax (mod.py, line _)"
    )


def test_normalise_keeps_node_id_colons():
    assert normalise_error_line("tests/test_x.py::test_a[1-2] failed") == "tests/test_x.py::test_a[1-2] failed"


def test_normalise_strips_pytest_gutter_and_whitespace_runs():
    assert normalise_error_line("E       assert   3 ==\t4  ") == "assert 3 == 4"


@SETTINGS
@given(st.text(alphabet=st.sampled_from(list("aE x/:.py0123456789line\t\\C_-()'\"")), max_size=80))
def test_normalise_is_idempotent(line):
    once = normalise_error_line(line)
    assert normalise_error_line(once) == once


@SETTINGS
@given(st.text(max_size=200))
def test_normalise_is_idempotent_on_arbitrary_text(line):
    once = normalise_error_line(line)
    assert normalise_error_line(once) == once


# --- failure_signature ----------------------------------------------------------------------------------------


def test_signature_is_128_bit_hex():
    sig = failure_signature(True, ["t::a"], "assert 1 == 2")
    assert len(sig) == 32 and int(sig, 16) >= 0


def test_signature_ignores_order_and_duplicates_of_failing_ids():
    assert failure_signature(True, ["b", "a", "b"], "x") == failure_signature(True, ["a", "b"], "x")


def test_signature_distinguishes_each_component():
    base = failure_signature(True, ["a"], "assert 1 == 2")
    assert failure_signature(False, ["a"], "assert 1 == 2") != base
    assert failure_signature(True, ["a", "b"], "assert 1 == 2") != base
    assert failure_signature(True, ["a"], "assert 1 == 3") != base


def test_signature_ids_cannot_collide_through_separators():
    assert failure_signature(True, ["a,b"], "") != failure_signature(True, ["a", "b"], "")
    assert failure_signature(True, ["a"], "b") != failure_signature(True, ["a", "b"], "")


def test_signature_same_failure_in_other_workspace_after_line_shift_is_equal():
    first = failure_signature(True, ["t::a"], 'File "/tmp/ws-1/pkg/mod.py", line 10, in f')
    second = failure_signature(True, ["t::a"], 'File "/tmp/ws-2/pkg/mod.py", line 13, in f')
    assert first == second


@SETTINGS
@given(st.booleans(), st.lists(st.text(max_size=10), max_size=5), st.text(max_size=50))
def test_signature_depends_only_on_normalised_line(compiles, ids, line):
    assert failure_signature(compiles, ids, line) == failure_signature(compiles, ids, normalise_error_line(line))


# --- candidate_digest -----------------------------------------------------------------------------------------


def test_candidate_digest_ignores_file_order_and_accepts_bytes():
    files = [("b.py", "y = 2\n"), ("a.py", "x = 1\n")]
    assert candidate_digest(files) == candidate_digest(reversed(files))
    assert candidate_digest(files) == candidate_digest([("a.py", b"x = 1\n"), ("b.py", b"y = 2\n")])
    assert len(candidate_digest(files)) == 64


def test_candidate_digest_changes_with_one_byte():
    assert candidate_digest([("a.py", "x = 1\n")]) != candidate_digest([("a.py", "x = 1 \n")])


def test_candidate_digest_is_not_fooled_by_moving_bytes_between_path_and_content():
    assert candidate_digest([("ab", "c")]) != candidate_digest([("a", "bc")])
    assert candidate_digest([("a", "b"), ("c", "d")]) != candidate_digest([("a", "b\0c\0d")])


def test_candidate_digest_rejects_duplicate_paths():
    with pytest.raises(ValueError, match="twice"):
        candidate_digest([("a.py", "1"), ("a.py", "2")])


def test_candidate_digest_of_empty_candidate_is_stable():
    assert candidate_digest([]) == candidate_digest(())


# --- top_error_line -------------------------------------------------------------------------------------------

PYTEST_ASSERT = """\
=================================== FAILURES ===================================
____________________________________ test_a ____________________________________

    def test_a():
>       assert add(1, 2) == 4
E       assert 3 == 4
E        +  where 3 = add(1, 2)

tests/test_x.py:5: AssertionError
=========================== short test summary info ============================
FAILED tests/test_x.py::test_a - assert 3 == 4
"""

PYTEST_NAME_ERROR = """\
    def add(a, b):
>       return a + c
E       NameError: name 'c' is not defined

pkg/mod.py:2: NameError
"""

PYTEST_COLLECTION_SYNTAX_ERROR = """\
==================================== ERRORS ====================================
_______________________ ERROR collecting tests/test_x.py _______________________
/usr/lib/python3/dist-packages/_pytest/python.py:617: in _importtestmodule
    mod = import_path(self.path, mode=importmode, root=self.config.rootpath)
E     File "/tmp/ws/pkg/mod.py", line 3
E       def f(:
E             ^
E   SyntaxError: invalid syntax
"""

PLAIN_TRACEBACK = """\
Traceback (most recent call last):
  File "/tmp/ws/run.py", line 4, in <module>
    raise ValueError("bad")
ValueError: bad
"""


def test_top_error_line_prefers_the_assertion_explanation():
    assert top_error_line(PYTEST_ASSERT) == "assert 3 == 4"


def test_top_error_line_reads_exception_from_gutter():
    assert top_error_line(PYTEST_NAME_ERROR) == "NameError: name 'c' is not defined"


def test_top_error_line_skips_location_lines_in_collection_errors():
    assert top_error_line(PYTEST_COLLECTION_SYNTAX_ERROR) == "SyntaxError: invalid syntax"


def test_top_error_line_reads_plain_traceback():
    assert top_error_line(PLAIN_TRACEBACK) == "ValueError: bad"


def test_top_error_line_reads_tb_line_format_and_short_summary():
    assert top_error_line("/tmp/ws/tests/test_x.py:5: assert 3 == 4\n") == "assert 3 == 4"
    assert top_error_line("FAILED tests/test_x.py::test_a - Failed: DID NOT RAISE\n") == "Failed: DID NOT RAISE"


def test_top_error_line_never_picks_source_listing():
    text = "    def test_a():\n>       assert f() == 4\n    ValueError: in an indented listing\n"
    assert top_error_line(text) == ""


def test_top_error_line_of_empty_text_is_empty():
    assert top_error_line("") == ""


def _run_pytest(tmp_path: Path, module: str, test: str) -> str:
    (tmp_path / "mod.py").write_text(module)
    (tmp_path / "test_mod.py").write_text(test)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rA", str(tmp_path)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode in (1, 2), done.stdout + done.stderr  # 1: tests failed, 2: collection error
    return done.stdout


def test_real_pytest_failures_in_shifted_code_share_a_signature(tmp_path):
    # The same fault, once at line 2 and once shifted down by an edit, in two different workspaces.
    test = "from mod import f\n\ndef test_f():\n    assert f() == 4\n"
    module = "class Node:\n    pass\n\ndef f():\n    return Node().missing\n"
    first_dir, second_dir = tmp_path / "one", tmp_path / "two"
    first_dir.mkdir()
    second_dir.mkdir()
    first = top_error_line(_run_pytest(first_dir, module, test))
    second = top_error_line(_run_pytest(second_dir, "\n\n\n# moved\n" + module, test))
    assert first == "AttributeError: 'Node' object has no attribute 'missing'"
    assert failure_signature(True, ["test_mod.py::test_f"], first) == failure_signature(
        True, ["test_mod.py::test_f"], second
    )


def test_real_pytest_collection_error_is_a_syntax_error_line(tmp_path):
    out = _run_pytest(tmp_path, "def f(:\n    pass\n", "from mod import f\n\ndef test_f():\n    assert f()\n")
    assert top_error_line(out).startswith("SyntaxError:")


def test_real_pytest_assert_rewrite_line(tmp_path):
    module = textwrap.dedent(
        """\
        def add(a, b):
            return a - b
        """
    )
    out = _run_pytest(tmp_path, module, "from mod import add\n\ndef test_add():\n    assert add(1, 2) == 3\n")
    assert top_error_line(out) == "assert -1 == 3"
