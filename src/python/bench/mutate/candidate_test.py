"""Tests of candidate task specs: schema-valid, loadable, ids stable under seed and index."""

from __future__ import annotations

import hashlib
from dataclasses import replace

from bench.mutate.candidate import candidate_spec, lockfile_for, site_hash, task_id_for
from bench.spec.load import spec_from_document
from bench.spec.model import MutationSite, SdistPin
from bench.spec.validate import validate_document

PIN = SdistPin("more-itertools", "10.5.0", "more_itertools-10.5.0.tar.gz", "ab" * 32)
SITE = MutationSite(
    file="more_itertools/more.py",
    function="chunked",
    operator="comparison",
    lineno=188,
    col=29,
    start=4085,
    end=4087,
    original_sha256=hashlib.sha256(b"!=").hexdigest(),
    replacement="==",
    engine_version="1",
    seed=0,
    index=3,
)


def test_candidate_spec_is_a_valid_mutation_task_spec():
    doc = candidate_spec(PIN, SITE, original="!=", library="more-itertools", test_files=("tests/test_more.py",),
                         diff="--- a\n")
    validate_document(doc)
    spec = spec_from_document(doc)
    assert spec.kind == "mutation" and spec.repo == "pypi:more-itertools==10.5.0"
    assert spec.source_files == ("more_itertools/more.py",) and spec.test_files == ("tests/test_more.py",)
    assert spec.fail_to_pass == () and spec.pass_to_pass == ()
    assert spec.image == "trixie-py313" and spec.lockfile == "lockfiles/tasks/mutation-more-itertools-10.5.0.lock"
    assert spec.sdist == PIN and spec.mutation == SITE
    assert doc["provenance"] == {"source": "mutation"} and doc["mutation"]["diff"] == "--- a\n"
    assert "original" not in doc["mutation"]  # the span's text is named by hash: no library code in a spec


def test_task_id_names_library_version_and_site_hash():
    expected = f"mutation.more-itertools.10.5.0.{site_hash(PIN, SITE, '!=')[:8]}"
    assert task_id_for(PIN, SITE, original="!=", library="more-itertools") == expected


def test_task_id_ignores_how_the_site_was_found_but_not_what_it_changes():
    same_bug = replace(SITE, seed=9, index=0, function="x", lineno=1, col=0)
    def task_id(site: MutationSite, original: str = "!=") -> str:
        return task_id_for(PIN, site, original=original, library="m")

    assert task_id(same_bug) == task_id(SITE)
    assert task_id(replace(SITE, replacement="<")) != task_id(SITE)
    assert task_id(SITE, original="==") != task_id(SITE)
    # a newer engine's pool never reuses an id of a retired (version 1) task; version 1 ids are as they were
    assert task_id(replace(SITE, engine_version="2")) != task_id(SITE)
    assert task_id(replace(same_bug, engine_version="2")) == task_id(replace(SITE, engine_version="2"))
    other_release = replace(PIN, sha256="cd" * 32)
    assert site_hash(other_release, SITE, "!=") != site_hash(PIN, SITE, "!=")


def test_ids_and_locks_are_lowercase_and_safe():
    pin = replace(PIN, name="Foo_Bar", version="1.0RC1+local")
    assert task_id_for(pin, SITE, original="!=", library="Foo_Bar").startswith("mutation.foo-bar.1.0rc1-local.")
    assert lockfile_for(pin) == "lockfiles/tasks/mutation-foo-bar-1.0rc1-local.lock"


def test_source_files_can_be_given_explicitly():
    doc = candidate_spec(PIN, SITE, original="!=", library="m", source_files=["a.py", "b.py"],
                         test_files=["tests/t.py"])
    assert doc["source_files"] == ["a.py", "b.py"] and "diff" not in doc["mutation"]


def test_a_reverted_fix_names_its_commit_in_the_provenance_and_is_selected_by_its_operator():
    from bench.spec.load import select

    site = replace(SITE, operator="reverted_fix", engine_version="history", replacement="        return low")
    doc = candidate_spec(PIN, site, original="        return high", library="more-itertools",
                         test_files=("tests/test_more.py",), reverted_commit="0123456789abcdef" * 2 + "01234567")
    validate_document(doc)
    spec = spec_from_document(doc)
    assert spec.provenance.reverted_commit == "0123456789abcdef" * 2 + "01234567"
    engine = spec_from_document(candidate_spec(PIN, SITE, original="!=", library="more-itertools",
                                               test_files=("tests/test_more.py",)))
    assert engine.provenance.reverted_commit == ""
    assert [s.task_id for s in select((spec, engine), "operator:reverted_fix")] == [spec.task_id]
    assert [s.task_id for s in select((spec, engine), "operator:comparison")] == [engine.task_id]
