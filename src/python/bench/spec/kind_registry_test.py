"""The task-kind seam: built-in kinds answer by name, an unknown one is refused by name, and a kind registered at
run time is used by validation, loading and selection without any edit of the harness."""

from __future__ import annotations

import copy

import pytest

from bench.errors import SpecError
from bench.spec.kind_registry import get_kind, known_kinds, register
from bench.spec.load import select, spec_from_document
from bench.spec.model import TaskSpec, Provenance, SdistPin
from bench.spec.validate import validate_document
from bench.spec.validate_test import GOOD_PR


def _spec(kind: str, **fields) -> TaskSpec:
    base = dict(task_id="t", kind=kind, repo="https://example.invalid/Org/Some_Lib.git", source_files=("src/lib/a.py",),
                test_files=("tests/test_a.py",), fail_to_pass=("tests/test_a.py::t",), pass_to_pass=(),
                image="img", lockfile="lockfiles/tasks/t.lock", provenance=Provenance("x"))
    return TaskSpec(**{**base, **fields})


def test_each_built_in_kind_names_its_library_and_admission_folder():
    pr = _spec("pr")
    mutation = _spec("mutation", sdist=SdistPin("More_Itertools", "10.5.0", "more_itertools-10.5.0.tar.gz", "0" * 64))
    synthetic = _spec("synthetic", synthetic_dir="tasks/synthetic/x")
    assert [(s.library, get_kind(s.kind).admission_group(s)) for s in (pr, mutation, synthetic)] == [
        ("some_lib", "some_lib"), ("more-itertools", "mutation-more-itertools"), ("synthetic", "synthetic")]
    assert [get_kind(s.kind).selector_names(s) for s in (pr, mutation, synthetic)] == [("lib",), ("lib",), ()]
    assert [get_kind(s.kind).repo_inputs(s) for s in (pr, mutation, synthetic)] == [(), (), ("tasks/synthetic/x",)]
    assert [get_kind(s.kind).limits(s).wall_seconds for s in (pr, mutation, synthetic)] == [300.0, 300.0, 30.0]


def test_an_unknown_kind_is_refused_naming_the_known_ones():
    with pytest.raises(SpecError) as info:
        get_kind("feature")
    assert info.value.kind == "bad_value"
    assert "unknown task kind 'feature' (known: mutation, pr, synthetic)" in str(info.value)


def test_a_kind_requires_its_own_keys_and_provenance():
    doc = copy.deepcopy(GOOD_PR)
    doc["kind"] = "mutation"
    with pytest.raises(SpecError) as info:
        validate_document(doc)
    assert (info.value.kind, info.value.message) == ("missing_key", "'sdist' is a required property of a mutation task")
    doc = copy.deepcopy(GOOD_PR)
    doc["provenance"] = {"source": "mutation"}
    with pytest.raises(SpecError) as info:
        validate_document(doc)
    assert (info.value.kind, info.value.pointer) == ("bad_value", "/provenance/source")


def test_a_kind_registered_at_run_time_is_validated_loaded_and_selected():
    from bench.kinds.base import RepositoryKind

    @register("vendored")
    class Vendored(RepositoryKind):
        name = "vendored"
        provenance_source = "vendored"
        required_keys = ("base_sha",)

        def library(self, spec):
            return "vendored-" + super().library(spec)

    try:
        doc = {**copy.deepcopy(GOOD_PR), "kind": "vendored", "provenance": {"source": "vendored"}}
        doc.pop("fix_sha")
        spec = spec_from_document(doc)
        assert (spec.kind, spec.library) == ("vendored", "vendored-click")
        assert [s.task_id for s in select([spec], "kind:vendored")] == ["click-2345"]
        assert "vendored" in known_kinds()
        doc.pop("base_sha")
        with pytest.raises(SpecError) as info:
            validate_document(doc)
        assert info.value.kind == "missing_key"
    finally:
        from bench.spec import kind_registry

        kind_registry._kinds.pop("vendored", None)
