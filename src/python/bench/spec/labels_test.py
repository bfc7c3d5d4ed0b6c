from __future__ import annotations

import json

import pytest

from bench.errors import UsageError
from bench.spec.labels import write_labels
from bench.spec.load import load_spec, spec_sha256
from bench.spec.validate_test import GOOD_PR


def test_write_labels_adds_the_day_keeps_the_key_order_and_the_identity(tmp_path):
    path = tmp_path / "x-1.json"
    path.write_text(json.dumps(dict(GOOD_PR, task_id="x-1"), indent=2) + "\n")
    before = load_spec(path)
    keys = list(json.loads(path.read_text()))
    write_labels(path, {"released": "2024-10-04"})
    after = load_spec(path)
    assert after.date == "2024-10-04" and before.date == ""
    assert list(json.loads(path.read_text())) == keys
    assert spec_sha256(after) == spec_sha256(before)


def test_write_labels_refuses_a_field_that_is_part_of_the_identity(tmp_path):
    path = tmp_path / "x-1.json"
    text = json.dumps(dict(GOOD_PR, task_id="x-1"), indent=2) + "\n"
    path.write_text(text)
    with pytest.raises(UsageError, match="merged_at"):
        write_labels(path, {"merged_at": "2024-10-04"})
    assert path.read_text() == text
