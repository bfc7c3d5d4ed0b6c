from __future__ import annotations

import pytest

from bench.errors import SpecError, UsageError
from bench.testing.support import checkout_root
from bench.spec.load import select, spec_from_document, spec_sha256
from bench.spec.validate_test import GOOD_PR


def _spec(task_id, kind="pr", **extra):
    doc = dict(GOOD_PR, task_id=task_id, **extra)
    if kind == "synthetic":
        doc.update(kind="synthetic", provenance={"source": "authored"}, synthetic={"dir": "tasks/synthetic/x"},
                   difficulty="hard", repo="synthetic/x")
        doc.pop("base_sha"), doc.pop("fix_sha")
    return spec_from_document(doc, path=f"tasks/{'synthetic' if kind == 'synthetic' else 'click'}/{task_id}.json")


SPECS = (_spec("click-1"), _spec("click-2"), _spec("synthetic.graph", kind="synthetic"))


def test_select_all_forms():
    assert [s.task_id for s in select(SPECS, None)] == ["click-1", "click-2", "synthetic.graph"]
    assert [s.task_id for s in select(SPECS, "tasks::")] == ["click-1", "click-2", "synthetic.graph"]


def test_select_by_field_glob_and_folder():
    assert [s.task_id for s in select(SPECS, "kind:synthetic")] == ["synthetic.graph"]
    assert [s.task_id for s in select(SPECS, "lib:click")] == ["click-1", "click-2"]
    assert [s.task_id for s in select(SPECS, "click-*")] == ["click-1", "click-2"]
    assert [s.task_id for s in select(SPECS, "tasks/synthetic::")] == ["synthetic.graph"]
    assert [s.task_id for s in select(SPECS, "difficulty:hard,click-2")] == ["click-2", "synthetic.graph"]


def test_selector_that_matches_nothing_is_a_usage_error():
    with pytest.raises(UsageError):
        select(SPECS, "lib:nope")
    with pytest.raises(UsageError):
        select(SPECS, "colour:red")


def test_plus_joins_conditions_that_must_all_hold():
    assert [s.task_id for s in select(SPECS, "kind:pr+click-2")] == ["click-2"]
    assert [s.task_id for s in select(SPECS, "kind:synthetic+difficulty:hard")] == ["synthetic.graph"]
    with pytest.raises(UsageError, match="matches no task"):
        select(SPECS, "kind:pr+difficulty:hard")


def test_a_field_value_the_pool_lacks_lists_the_values_it_has():
    with pytest.raises(UsageError, match=r"kind values in the pool: pr, synthetic\)"):
        select(SPECS, "kind:bogus")


def test_lib_also_matches_the_import_package_of_the_source_files():
    jinja = _spec("jinja-1", repo="https://github.com/pallets/jinja", source_files=["src/jinja2/compiler.py"])
    assert jinja.library == "jinja"
    assert [s.task_id for s in select((*SPECS, jinja), "lib:jinja2")] == ["jinja-1"]
    assert [s.task_id for s in select((*SPECS, jinja), "lib:jinja")] == ["jinja-1"]


def test_spec_sha_is_key_order_independent():
    a = spec_from_document(GOOD_PR)
    b = spec_from_document(dict(reversed(list(GOOD_PR.items()))))
    assert spec_sha256(a) == spec_sha256(b)
    assert spec_sha256(a) != spec_sha256(_spec("click-9"))


def test_a_spec_is_validated_once_per_content_and_an_edit_is_validated_again(tmp_path, monkeypatch):
    import json as json_module

    import bench.spec.load as load_module

    calls = []
    real = load_module.validate_document
    monkeypatch.setattr(load_module, "validate_document", lambda doc, path="": (calls.append(path), real(doc, path=path)))
    monkeypatch.setenv("BENCH_CACHE_DIR", str(tmp_path / "cache"))
    source = next(p for p in sorted(checkout_root().glob("tasks/*/*.json")) if "/_" not in str(p))
    spec_path = tmp_path / source.name
    spec_path.write_bytes(source.read_bytes())
    first = load_module.load_spec(spec_path)
    second = load_module.load_spec(spec_path)
    assert first == second and len(calls) == 1
    load_module.load_spec(spec_path, revalidate=True)
    assert len(calls) == 2
    doc = json_module.loads(spec_path.read_text())
    doc["source_files"] = ["/etc/passwd"]  # an edit changes the content hash: it is checked, and refused
    spec_path.write_text(json_module.dumps(doc))
    with pytest.raises(SpecError):
        load_module.load_spec(spec_path)


def test_operator_none_selects_the_tasks_that_are_not_mutations():
    assert [s.task_id for s in select(SPECS, "operator:none")] == ["click-1", "click-2", "synthetic.graph"]


def _dated(task_id, merged_at):
    return _spec(task_id, provenance={"source": "pull-request", "pr_number": 1, "merged_at": merged_at})


DATED = (_dated("old-1", "2023-12-31T23:30:00-02:00"), _dated("new-1", "2024-06-01T00:00:00Z"),
         _dated("new-2", "2025-02-03T10:00:00Z"), _spec("undated-1"))


def test_a_merge_time_dates_its_task_by_the_utc_day():
    assert [s.date for s in DATED] == ["2024-01-01", "2024-06-01", "2025-02-03", ""]


def test_after_and_before_split_the_dated_tasks_at_the_cutoff_and_leave_the_undated_out():
    after = [s.task_id for s in select(DATED, "after:2024-06-01")]
    before = [s.task_id for s in select(DATED, "before:2024-06-01")]
    assert after == ["new-1", "new-2"] and before == ["old-1"]
    assert [s.task_id for s in select(DATED, "after:2024-01-01+before:2025-01-01")] == ["old-1", "new-1"]


def test_a_date_selector_with_a_bad_day_or_no_match_is_a_usage_error():
    for bad in ("after:2024-13-01", "before:24-01-01", "after:yesterday"):
        with pytest.raises(UsageError, match="YYYY-MM-DD"):
            select(DATED, bad)
    with pytest.raises(UsageError, match="task dates in the pool: 2024-01-01 to 2025-02-03"):
        select(DATED, "after:2030-01-01")


def test_the_labels_that_date_a_task_leave_its_identity_unchanged():
    doc = dict(GOOD_PR, task_id="x-1")
    plain = spec_from_document(doc)
    for label in ({"authored": "2026-11-30"}, {"released": "2024-10-04"}):
        labelled = spec_from_document(dict(doc, provenance={**doc["provenance"], **label}))
        assert labelled.date == next(iter(label.values()))
        assert spec_sha256(labelled) == spec_sha256(plain)
    moved = spec_from_document(dict(doc, provenance={**doc["provenance"], "merged_at": "2024-01-02T00:00:00Z"}))
    assert spec_sha256(moved) != spec_sha256(plain)  # the merge is part of what the task is


def test_a_date_label_that_is_not_a_day_is_refused():
    doc = dict(GOOD_PR, task_id="x-1")
    with pytest.raises(SpecError):
        spec_from_document(dict(doc, provenance={**doc["provenance"], "released": "2024-10-04T10:00:00Z"}))
