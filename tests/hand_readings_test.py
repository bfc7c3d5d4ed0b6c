"""scripts/hand_readings.py: how a reader's table becomes record entries."""

import importlib.util

import pytest

import bench.mutate.readings  # noqa: F401  (the script imports it: named here so the build ships it)
from bench.testing.support import checkout_root

_spec = importlib.util.spec_from_file_location("hand_readings", checkout_root() / "scripts" / "hand_readings.py")
hand_readings = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(hand_readings)


@pytest.mark.parametrize("cell, expected", [
    ("no", "no"), ("no (borderline)", "no (borderline)"), ("No (borderline, weak G4)", "no (borderline)"),
    ("yes: G4", "yes: G4"), ("yes (borderline): G3", "yes (borderline): G3"), ("yes: G3 + G4", "yes: G3"),
])
def test_verdict_cells_normalise_to_the_records_forms(cell, expected):
    assert hand_readings.normalise(cell) == expected


def test_a_verdict_without_a_grade_is_refused():
    with pytest.raises(SystemExit, match="cannot read the verdict"):
        hand_readings.normalise("yes")


def test_table_rows_skip_the_header_and_keep_escaped_pipes_inside_a_cell():
    table = ("# part 1\n\n| # | task | operator | giveaway | why |\n|---|---|---|---|---|\n"
             "| 1 | t.one | comparison (`a \\| b` -> `a & b`) | no | reads as the file writes it |\n"
             "| 2 | t.two | arithmetic | yes (borderline): G2 | adds zero |\n")
    assert list(hand_readings.table_rows(table)) == [
        ("t.one", "no", "reads as the file writes it"), ("t.two", "yes (borderline): G2", "adds zero")]
