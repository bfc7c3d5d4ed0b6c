"""Validation of task specs: the JSON Schema first, then the rules a schema cannot say.

Each failure is a :class:`SpecError` whose ``kind`` names the rule, so callers and tests can tell
"unknown key" from "path outside the repo" without parsing messages.
"""

from __future__ import annotations

import json
import posixpath
import re
from functools import lru_cache
from importlib import resources
from typing import Any, Mapping

from bench.errors import SpecError

SCHEMA_VERSION = 1
SCHEMA_RESOURCE = "task-spec.v1.schema.json"
PATH_FIELDS = ("source_files", "test_files")
TEST_ID_FIELDS = ("fail_to_pass", "pass_to_pass")
# Anything a shell would treat specially. Paths are passed as argv, never through a shell, but a spec that
# needs such characters is almost certainly hostile or broken.
SHELL_METACHARS = re.compile(r"""[\s;&|`$<>(){}\[\]*?!~'"\\#%^=,]""")


@lru_cache(maxsize=1)
def schema() -> Mapping[str, Any]:
    text = resources.files("bench.spec").joinpath("schema", SCHEMA_RESOURCE).read_text(encoding="utf-8")
    return json.loads(text)


@lru_cache(maxsize=1)
def schema_sha256() -> str:
    import hashlib

    raw = resources.files("bench.spec").joinpath("schema", SCHEMA_RESOURCE).read_bytes()
    return hashlib.sha256(raw).hexdigest()


def validate_document(doc: Any, *, path: str = "") -> None:
    """Raise SpecError for the first problem found in a parsed spec document."""
    if not isinstance(doc, dict):
        raise SpecError("a task spec must be a JSON object", kind="wrong_type", path=path)
    _check_schema(doc, path)
    for field in PATH_FIELDS:
        for index, rel in enumerate(doc[field]):
            check_relative_path(rel, path=path, pointer=f"/{field}/{index}")
    check_relative_path(doc["lockfile"], path=path, pointer="/lockfile")
    for index, test_id in enumerate(_all_test_ids(doc)):
        file_part = test_id.split("::", 1)[0]
        check_relative_path(file_part, path=path, pointer=f"/test ids/{index}", allow_metachars=False)
    _kind(doc, path).check_document(doc, path=path)
    overlap = set(doc["fail_to_pass"]) & set(doc["pass_to_pass"])
    if overlap:
        raise SpecError(f"test ids in both fail_to_pass and pass_to_pass: {sorted(overlap)[:3]}",
                        kind="overlapping_test_ids", path=path)
    if set(doc["source_files"]) & set(doc["test_files"]):
        raise SpecError("a file cannot be both a source file and a test file", kind="source_is_test", path=path)
    outside = [t for t in _all_test_ids(doc) if t.split("::", 1)[0] not in set(doc["test_files"])]
    if outside:  # the harness runs test_files only: such a target could never pass or fail
        raise SpecError(f"test ids in files that are not test_files: {outside[:3]}", kind="test_outside_test_files",
                        path=path)


def check_relative_path(rel: str, *, path: str = "", pointer: str = "", allow_metachars: bool = False) -> None:
    """A repo-relative POSIX path: not absolute, no `..`, already normalised, no shell metacharacters."""
    if rel.startswith("/") or re.match(r"^[A-Za-z]:[\\/]", rel):
        raise SpecError(f"{rel!r} is absolute; paths are relative to the repository root",
                        kind="absolute_path", path=path, pointer=pointer)
    normalised = posixpath.normpath(rel)
    if normalised == ".." or normalised.startswith("../"):
        raise SpecError(f"{rel!r} normalises to {normalised!r}, outside the repository",
                        kind="path_outside_repo", path=path, pointer=pointer)
    if ".." in rel.split("/"):
        raise SpecError(f"{rel!r} contains '..'", kind="parent_path", path=path, pointer=pointer)
    if normalised != rel or rel in (".", ""):
        raise SpecError(f"{rel!r} is not normalised (expected {normalised!r})",
                        kind="not_normalised", path=path, pointer=pointer)
    if not allow_metachars and (SHELL_METACHARS.search(rel) or any(ord(c) < 32 for c in rel)):
        raise SpecError(f"{rel!r} contains a shell metacharacter or control character",
                        kind="shell_metachar", path=path, pointer=pointer)


def _all_test_ids(doc: Mapping[str, Any]) -> list[str]:
    return [t for field in TEST_ID_FIELDS for t in doc[field]]


def _check_schema(doc: Mapping[str, Any], path: str) -> None:
    import jsonschema

    validator = jsonschema.Draft202012Validator(schema())
    errors = sorted(validator.iter_errors(doc), key=_error_order)
    if errors and _error_order(errors[0])[0] <= 1:  # unknown and missing keys before the kind's own rules
        raise _to_spec_error(errors[0], path)
    if isinstance(doc.get("kind"), str):
        _check_kind_rules(doc, path)
    if errors:
        raise _to_spec_error(errors[0], path)


def _kind(doc: Mapping[str, Any], path: str):
    from bench.spec.kind_registry import get_kind

    try:
        return get_kind(doc["kind"])
    except SpecError as exc:
        raise SpecError(exc.message, kind=exc.kind, path=path, pointer="/kind") from None


def _check_kind_rules(doc: Mapping[str, Any], path: str) -> None:
    """What the task's kind requires of the document: its own keys and its provenance."""
    kind = _kind(doc, path)
    for key in kind.required_keys:
        if key not in doc:
            raise SpecError(f"{key!r} is a required property of a {kind.name} task", kind="missing_key", path=path,
                            pointer="/")
    source = doc.get("provenance", {}).get("source") if isinstance(doc.get("provenance"), dict) else None
    if isinstance(source, str) and source not in (kind.provenance_source, *getattr(kind, "other_provenance_sources", ())):
        raise SpecError(f"provenance.source of a {kind.name} task is {kind.provenance_source!r}, not {source!r}",
                        kind="bad_value", path=path, pointer="/provenance/source")


def _error_order(error: Any) -> tuple:
    # Report structural problems (unknown/missing keys, wrong types) before value-level ones, and shallow
    # before deep, so the message points at the root cause.
    rank = {"additionalProperties": 0, "required": 1, "type": 2}.get(error.validator, 3)
    return (rank, len(error.absolute_path), list(map(str, error.absolute_path)))


def _to_spec_error(error: Any, path: str) -> SpecError:
    pointer = "/" + "/".join(str(p) for p in error.absolute_path)
    field = str(error.absolute_path[0]) if error.absolute_path else ""
    if error.validator == "additionalProperties":
        extra = sorted(set(error.instance) - set(error.schema.get("properties", {})))
        return SpecError(f"unknown key(s) {extra}", kind="unknown_key", path=path, pointer=pointer)
    if error.validator == "required":
        return SpecError(error.message, kind="missing_key", path=path, pointer=pointer)
    if error.validator == "type":
        if field in TEST_ID_FIELDS + PATH_FIELDS and len(error.absolute_path) == 1 and isinstance(error.instance, str):
            return SpecError(f"{field} must be an array of strings, not a string",
                             kind="string_not_array", path=path, pointer=pointer)
        return SpecError(error.message, kind="wrong_type", path=path, pointer=pointer)
    if error.validator == "pattern" and field in ("base_sha", "fix_sha"):
        return SpecError(f"{field} must be 40 lowercase hex digits, got {error.instance!r}",
                         kind="bad_sha", path=path, pointer=pointer)
    if error.validator == "uniqueItems":
        return SpecError(f"{field} has duplicate entries", kind="duplicate_entry", path=path, pointer=pointer)
    return SpecError(error.message, kind="bad_value", path=path, pointer=pointer)
