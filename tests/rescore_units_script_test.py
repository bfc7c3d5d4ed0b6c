"""scripts/rescore_units.py replaces the lines of the units scored again where they stood, and nothing else."""

from __future__ import annotations

import importlib.util
import json

from bench.testing.support import checkout_root


def _script():
    spec = importlib.util.spec_from_file_location("rescore_units", checkout_root() / "scripts/rescore_units.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _line(task: str, value: int) -> str:
    return json.dumps({"task_id": task, "model": "repairer/ast", "condition": "full", "sample": 0, "v": value})


def test_a_rescored_unit_takes_its_old_lines_place_and_the_others_stay_byte_for_byte():
    script = _script()
    lines = [_line("a", 1), _line("b", 1), "", _line("c", 1)]
    timing = json.dumps({"unit": ["b", "repairer/ast", "full", 0], "wall_seconds": 2.0})
    fresh = {script.unit_of(_line("b", 2)): _line("b", 2)}
    spliced, replaced = script.splice(lines, fresh)
    assert spliced == [_line("a", 1), _line("b", 2), "", _line("c", 1)]
    assert replaced == [("b", "repairer/ast", "full", 0)]
    assert script.unit_of(timing) == script.unit_of(_line("b", 9))
