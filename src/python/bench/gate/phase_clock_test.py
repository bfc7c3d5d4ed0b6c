import time

import pytest

from bench.gate.phase_clock import add, measuring, phase, rounded


def test_phases_add_up_inside_a_measurement_and_nothing_outside():
    add("tests", 5.0)  # no clock running: ignored
    with measuring() as totals:
        add("tests", 1.25)
        add("tests", 0.5)
        with phase("lock"):
            time.sleep(0.01)
    assert totals["tests"] == 1.75
    assert totals["lock"] >= 0.01
    assert list(rounded(totals)) == ["lock", "tests"]


def test_an_unknown_phase_is_refused():
    with pytest.raises(ValueError, match="unknown phase 'linking'"):
        add("linking", 1.0)


def test_a_measurement_ends_with_its_block():
    with measuring() as first:
        pass
    add("lock", 3.0)
    assert first == {}
