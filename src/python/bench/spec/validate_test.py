"""Every bad-input rule of the task schema: each case asserts the exact error kind."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from bench.errors import DuplicateTaskError, SpecError
from bench.spec.load import load_all, spec_from_document
from bench.spec.validate import validate_document

GOOD_PR = {
    "schema_version": 1,
    "task_id": "click-2345",
    "kind": "pr",
    "repo": "pallets/click",
    "base_sha": "a" * 40,
    "fix_sha": "b" * 40,
    "source_files": ["src/click/core.py"],
    "test_files": ["tests/test_basic.py"],
    "fail_to_pass": ["tests/test_basic.py::test_x"],
    "pass_to_pass": ["tests/test_basic.py::test_y[a-b]"],
    "image": "trixie-py313",
    "lockfile": "lockfiles/tasks/click-2345.lock",
    "provenance": {"source": "pull-request", "pr_number": 2345, "url": "https://example.invalid/pr/2345"},
}


def _with(**changes):
    doc = copy.deepcopy(GOOD_PR)
    for key, value in changes.items():
        if value is None:
            doc.pop(key)
        else:
            doc[key] = value
    return doc


def _kind_of(doc) -> str:
    with pytest.raises(SpecError) as info:
        validate_document(doc, path="x.json")
    return info.value.kind


def test_good_spec_loads_into_frozen_record():
    spec = spec_from_document(GOOD_PR)
    assert spec.task_id == "click-2345"
    assert spec.fail_to_pass == ("tests/test_basic.py::test_x",)
    assert spec.library == "click"
    assert spec.provenance.pr_number == 2345


@pytest.mark.parametrize(
    "doc, kind",
    [
        (_with(surprise=1), "unknown_key"),
        (_with(task_id=None), "missing_key"),
        (_with(source_files="src/click/core.py"), "string_not_array"),
        (_with(fail_to_pass="tests/test_basic.py::test_x"), "string_not_array"),
        (_with(pass_to_pass="tests/test_basic.py::test_y"), "string_not_array"),
        (_with(schema_version="1"), "bad_value"),
        (_with(fail_to_pass=[1]), "wrong_type"),
        (_with(base_sha="A" * 40), "bad_sha"),
        (_with(fix_sha="xyz"), "bad_sha"),
        (_with(base_sha="a" * 39), "bad_sha"),
        (_with(source_files=["/etc/passwd"]), "absolute_path"),
        (_with(test_files=["../outside/test_a.py"]), "path_outside_repo"),
        (_with(source_files=["src/../../etc/passwd"]), "path_outside_repo"),
        (_with(source_files=["src/../click/core.py"]), "parent_path"),
        (_with(source_files=["./src/click/core.py"]), "not_normalised"),
        (_with(source_files=["src/click/core.py; rm -rf ~"]), "shell_metachar"),
        (_with(test_files=["tests/$(whoami).py"]), "shell_metachar"),
        (_with(lockfile="/tmp/x.lock"), "absolute_path"),
        (_with(fail_to_pass=["../x.py::t"]), "path_outside_repo"),
        (_with(kind="weird"), "bad_value"),
        (_with(source_files=["a.py", "a.py"]), "duplicate_entry"),
        (_with(pass_to_pass=["tests/test_basic.py::test_x"]), "overlapping_test_ids"),
        (_with(test_files=["src/click/core.py"]), "source_is_test"),
        (_with(provenance={"source": "authored"}), "bad_value"),
        (_with(task_id="Click 2345"), "bad_value"),
    ],
)
def test_bad_spec_is_rejected_with_exact_kind(doc, kind):
    assert _kind_of(doc) == kind


def test_pr_kind_requires_shas():
    assert _kind_of(_with(base_sha=None)) == "missing_key"


def test_synthetic_kind_requires_dir_and_difficulty():
    doc = _with(kind="synthetic", provenance={"source": "authored"}, base_sha=None, fix_sha=None)
    assert _kind_of(doc) == "missing_key"
    doc.update(synthetic={"dir": "tasks/synthetic/x"}, difficulty="easy")
    validate_document(doc)


def test_duplicate_task_ids_across_files_are_rejected(tmp_path: Path):
    for name in ("a.json", "b.json"):
        (tmp_path / name).write_text(json.dumps(GOOD_PR))
    with pytest.raises(DuplicateTaskError) as info:
        load_all([tmp_path / "a.json", tmp_path / "b.json"])
    assert info.value.kind == "duplicate_id"


def test_invalid_json_is_reported_as_such(tmp_path: Path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(SpecError) as info:
        load_all([bad])
    assert info.value.kind == "invalid_json"
