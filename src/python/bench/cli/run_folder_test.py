from __future__ import annotations

import re
from pathlib import Path

import pytest

from bench.cli.run_folder import run_folder
from bench.errors import UsageError

ROOT = Path("/checkout")


def test_an_ordinary_run_gets_a_new_folder_under_results_runs():
    folder = run_folder(ROOT, "scripted-study", out=None, name=None, reference=False)
    assert folder.parent == ROOT / "results" / "runs" / "scripted-study"
    assert re.fullmatch(r"\d{8}-\d{6}", folder.name)


def test_a_named_run_resumes_in_the_same_folder():
    assert run_folder(ROOT, "m", out=None, name="sweep-1", reference=False) == ROOT / "results/runs/m/sweep-1"


def test_only_update_reference_writes_the_committed_folder():
    assert run_folder(ROOT, "scripted-study", out=None, name=None, reference=True) == \
        ROOT / "results/study/scripted-study"


def test_out_is_taken_as_it_is():
    assert run_folder(ROOT, "m", out=Path("/tmp/x"), name=None, reference=False) == Path("/tmp/x")


@pytest.mark.parametrize("kwargs", [
    {"out": Path("/tmp/x"), "name": "a", "reference": False},
    {"out": Path("/tmp/x"), "name": None, "reference": True},
    {"out": None, "name": "a", "reference": True},
    {"out": None, "name": "../escape", "reference": False},
    {"out": None, "name": "a/b", "reference": False},
])
def test_conflicting_or_unsafe_choices_are_usage_errors(kwargs):
    with pytest.raises(UsageError):
        run_folder(ROOT, "m", **kwargs)
