"""scripts/survivor_readings.py: a reader's table, the record's rule for "read equivalent", the function shown."""

import importlib.util

import pytest

import bench.probes.store  # noqa: F401  (the script imports it: named here so the build ships it)
from bench.testing.support import checkout_root

_spec = importlib.util.spec_from_file_location("survivor_readings",
                                               checkout_root() / "scripts" / "survivor_readings.py")
survivor_readings = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(survivor_readings)


def test_a_survivor_is_named_by_task_place_operator_and_span():
    identity = ("src/m.py", "wrong_variable", 12, 300, 305, "other")
    assert survivor_readings.survivor_key("t.one", identity) == "t.one src/m.py:12 wrong_variable [300:305]"


def test_table_rows_skip_the_header_and_keep_escaped_pipes():
    table = ("| # | survivor | verdict | input | why |\n|---|---|---|---|---|\n"
             "| 1 | `t.one src/m.py:12 wrong_variable [300:305]` | **differs** | `f(0 \\| 1)` | boundary value |\n"
             "| 2 | t.two m.py:3 comparison [1:2] | equivalent | — | lo == hi at the end |\n")
    assert list(survivor_readings.table_rows(table)) == [
        ("t.one src/m.py:12 wrong_variable [300:305]", "differs", "`f(0 \\| 1)`", "boundary value"),
        ("t.two m.py:3 comparison [1:2]", "equivalent", "—", "lo == hi at the end")]


def test_a_verdict_other_than_the_two_is_refused():
    with pytest.raises(SystemExit, match="is not one of"):
        list(survivor_readings.table_rows("| 1 | t m.py:3 comparison [1:2] | unsure | — | ? |\n"))


@pytest.mark.parametrize("verdicts, expected", [
    (["equivalent", "equivalent"], True),
    (["equivalent"], False),  # one reading is not enough
    (["equivalent", "differs"], False),  # any reading that finds an input keeps it counted
    (["equivalent", "equivalent", "differs"], False),
    ([], False),
])
def test_read_equivalent_needs_two_readings_and_no_dissent(verdicts, expected):
    record = {"k": [{"reading": f"r{i}", "verdict": v, "input": "", "why": ""} for i, v in enumerate(verdicts)]}
    assert survivor_readings.read_equivalent(record, "k") is expected


def test_the_enclosing_function_is_the_innermost_with_its_decorators():
    source = ("import x\n\nclass C:\n    @staticmethod\n    def f(a):\n        def g():\n            return a\n"
              "        return g\n\nz = 1\n")
    assert survivor_readings.enclosing_function(source, 7) == (6, 7, "C.f.g")
    assert survivor_readings.enclosing_function(source, 8) == (4, 8, "C.f")
    assert survivor_readings.enclosing_function(source, 10) == (1, 10, "<module>")


def test_unread_keeps_only_the_survivors_no_reading_has_named():
    """After a new probe version, the survivors read before keep their verdicts: only the new ones go out."""
    from types import SimpleNamespace

    spec = SimpleNamespace(task_id="t")
    old, new = ("a.py", "wrong_variable", 3, 10, 12), ("a.py", "comparison", 5, 20, 21)
    record = {survivor_already: [{"reading": "r1", "verdict": "differs"}]
              for survivor_already in [survivor_readings.survivor_key("t", old)]}
    assert survivor_readings.unread_only([(spec, old), (spec, new)], record) == [(spec, new)]
