"""A mutation candidate as a task spec: the JSON a maintainer certifies and, once admitted, commits.

The spec names the release by index, file name and sha256 and the bug by byte span, the sha256 of the text the
span holds, and the replacement; it carries no third-party source. ``fail_to_pass`` and ``pass_to_pass`` stay
empty until the gate has certified it.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import asdict

from bench.spec.model import MutationSite, SdistPin, normalise_name

MUTATION_IMAGE = "trixie-py313"
_UNSAFE_ID_CHARACTERS = re.compile(r"[^A-Za-z0-9._-]+")


def site_hash(pin: SdistPin, site: MutationSite, original: str) -> str:
    """sha256 of what makes the bug: the release and the span edit (not the seed or index that found it).

    ``original`` is the span's text (the engine has it; a spec only names it by hash). It is part of the identity
    as it always was, so task ids stay what they were when specs still quoted it. The engine's version joins the
    identity from version 2 on: a pool rebuilt by a newer engine never reuses an id of a retired task.
    """
    identity = {
        "sdist_sha256": pin.sha256,
        "file": site.file,
        "start": site.start,
        "end": site.end,
        "original": original,
        "replacement": site.replacement,
    }
    if site.engine_version != "1":
        identity["engine_version"] = site.engine_version
    return hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()


def lockfile_for(pin: SdistPin) -> str:
    """One lock per library release, shared by all its mutation tasks."""
    return f"lockfiles/tasks/mutation-{normalise_name(pin.name)}-{_safe(pin.version)}.lock"


def _safe(text: str) -> str:
    return _UNSAFE_ID_CHARACTERS.sub("-", text).lower()


def task_id_for(pin: SdistPin, site: MutationSite, *, original: str, library: str) -> str:
    return f"mutation.{normalise_name(library)}.{_safe(pin.version)}.{site_hash(pin, site, original)[:8]}"


def candidate_spec(
    pin: SdistPin,
    site: MutationSite,
    *,
    original: str,
    library: str,
    source_files: tuple[str, ...] | list[str] | None = None,
    test_files: tuple[str, ...] | list[str],
    diff: str = "",
    reverted_commit: str = "",
) -> dict:
    """The task-spec dict (kind ``mutation``) for one candidate; ``source_files`` defaults to the mutated file.

    ``diff`` (the candidate's unified diff, for reviewers) is stored in the ``mutation`` object when given;
    ``reverted_commit`` (a reverted fix's commit id, :mod:`bench.mutate.history`) in the provenance.
    """
    return {
        "schema_version": 1,
        "task_id": task_id_for(pin, site, original=original, library=library),
        "kind": "mutation",
        "repo": f"pypi:{pin.name}=={pin.version}",
        "source_files": list(source_files) if source_files is not None else [site.file],
        "test_files": list(test_files),
        "fail_to_pass": [],
        "pass_to_pass": [],
        "image": MUTATION_IMAGE,
        "lockfile": lockfile_for(pin),
        "provenance": {"source": "mutation", **({"reverted_commit": reverted_commit} if reverted_commit else {})},
        "sdist": asdict(pin),
        "mutation": {**asdict(site), **({"diff": diff} if diff else {})},
    }
