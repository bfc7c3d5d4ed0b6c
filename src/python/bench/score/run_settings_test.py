"""`run.json`: a results folder records the settings its records were made with, and a resume must match."""

from __future__ import annotations

import json

import pytest

from bench.errors import UsageError
from bench.model.protocol import ModelParams
from bench.score.runner import RunPlan, write_settings


def _plan(tmp_path, **changes) -> RunPlan:
    return RunPlan(model_id="llamacpp/smollm2", specs=(), out_dir=tmp_path, root=tmp_path, **changes)


def test_the_settings_are_written_beside_the_records(tmp_path):
    write_settings(_plan(tmp_path, params=ModelParams(max_tokens=256, context_size=8192), turns=4), resuming=False)
    settings = json.loads((tmp_path / "run.json").read_text())
    assert (settings["model"], settings["turns"]) == ("llamacpp/smollm2", 4)
    assert (settings["params"]["max_tokens"], settings["params"]["context_size"]) == (256, 8192)


def test_resuming_with_the_same_settings_is_allowed_whatever_the_worker_count(tmp_path):
    write_settings(_plan(tmp_path, workers=1), resuming=False)
    write_settings(_plan(tmp_path, workers=4), resuming=True)


def test_resuming_with_other_model_knobs_is_refused(tmp_path):
    write_settings(_plan(tmp_path, params=ModelParams(max_tokens=256)), resuming=False)
    with pytest.raises(UsageError, match="params differ"):
        write_settings(_plan(tmp_path, params=ModelParams(max_tokens=512)), resuming=True)
    assert json.loads((tmp_path / "run.json").read_text())["params"]["max_tokens"] == 256  # left as it was


def test_a_fresh_run_overwrites_earlier_settings(tmp_path):
    write_settings(_plan(tmp_path, turns=4), resuming=False)
    write_settings(_plan(tmp_path, turns=5), resuming=False)
    assert json.loads((tmp_path / "run.json").read_text())["turns"] == 5


def test_the_edit_format_is_recorded_only_when_it_is_not_the_default(tmp_path):
    write_settings(_plan(tmp_path), resuming=False)
    assert "edit_format" not in json.loads((tmp_path / "run.json").read_text())  # older folders still resume
    with pytest.raises(UsageError, match="edit_format differ"):
        write_settings(_plan(tmp_path, edit_format="function"), resuming=True)
    write_settings(_plan(tmp_path, edit_format="function"), resuming=False)
    assert json.loads((tmp_path / "run.json").read_text())["edit_format"] == "function"


def test_feeding_divergences_back_is_a_setting_a_resume_must_repeat(tmp_path):
    write_settings(_plan(tmp_path, turns=3), resuming=False)
    assert "feed_divergences" not in json.loads((tmp_path / "run.json").read_text())  # older folders resume
    write_settings(_plan(tmp_path / "fed", turns=3, feed_divergences=True), resuming=False)
    assert json.loads((tmp_path / "fed" / "run.json").read_text())["feed_divergences"] is True
    with pytest.raises(UsageError, match="feed_divergences"):
        write_settings(_plan(tmp_path / "fed", turns=3), resuming=True)
