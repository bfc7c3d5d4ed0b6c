"""Where a task's adequacy is kept, and which stored adequacy is still the task's.

The adequacy of a task (:mod:`bench.gate.adequacy`) is committed beside its certificate, in
``results/adequacy/<task_id>.json``, bound to it: the file names the sha256 of the certificate it was measured
under (its canonical JSON, as ``results/certificates/<task_id>.json.gz`` holds it). It is kept out of the
certificate's own bytes because records and cached score goals hash those bytes: measuring a task's tests must
not change what a run of it recorded. A stored adequacy whose certificate has changed since (a new lock, a new
image, a new spec) is stale and is read as not measured.

Bands split results by how much a task's tests can be trusted: ``all caught`` (every near miss run was
killed), ``some survive`` (the tests accept at least one wrong near miss of the fix), ``no near miss`` (none
could be made around the change) and ``unmeasured``.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Iterable, Mapping

from bench.gate.adequacy import Adequacy

ALL_CAUGHT = "all caught"
SOME_SURVIVE = "some survive"
NO_NEAR_MISS = "no near miss"
UNMEASURED = "unmeasured"
BANDS = (ALL_CAUGHT, SOME_SURVIVE, NO_NEAR_MISS, UNMEASURED)


def adequacy_file(root: Path, task_id: str) -> Path:
    return root / "results" / "adequacy" / f"{task_id}.json"


def certificate_sha256(root: Path, task_id: str) -> str:
    """sha256 of the task's committed certificate (its canonical JSON); "" when it has none."""
    from bench.gate.certify import certificate_file, read_certificate

    path = certificate_file(root, task_id)
    return hashlib.sha256(read_certificate(path)).hexdigest() if path.is_file() else ""


def write(root: Path, result: Adequacy) -> Path:
    """Store ``result`` bound to the task's current certificate (atomically)."""
    from bench.store.atomic import write_atomic

    document = {**result.to_json(), "certificate_sha256": certificate_sha256(root, result.task_id)}
    path = adequacy_file(root, result.task_id)
    return write_atomic(path, (json.dumps(document, indent=1, sort_keys=True) + "\n").encode())


def read_current(root: Path, task_id: str) -> Adequacy | None:
    """The stored adequacy of the task if it was measured under its current certificate, else None."""
    path = adequacy_file(root, task_id)
    if not path.is_file():
        return None
    document = json.loads(path.read_text(encoding="utf-8"))
    bound = document.get("certificate_sha256")
    if not bound or bound != certificate_sha256(root, task_id):
        return None
    return Adequacy.from_json(document)


def band(result: Adequacy | None) -> str:
    if result is None:
        return UNMEASURED
    if not result.run:
        return NO_NEAR_MISS
    return ALL_CAUGHT if result.killed == result.run else SOME_SURVIVE


def current(root: Path, task_ids: Iterable[str]) -> dict[str, Adequacy | None]:
    return {task_id: read_current(root, task_id) for task_id in task_ids}


def bands(adequacies: Mapping[str, Adequacy | None]) -> dict[str, str]:
    return {task_id: band(result) for task_id, result in adequacies.items()}


def summary(results: Iterable[Adequacy | None]) -> dict:
    """Tasks, how many were measured, the median adequacy (killed / run) of those with a near miss, and the
    share of those with at least one survivor (None where nothing was measured)."""
    import statistics

    results = list(results)
    scored = [r for r in results if r is not None and r.run]
    return {
        "tasks": len(results),
        "measured": sum(r is not None for r in results),
        "no_near_miss": sum(r is not None and not r.run for r in results),
        "median": statistics.median(r.killed / r.run for r in scored) if scored else None,
        "with_survivor": sum(r.killed < r.run for r in scored),
        "with_survivor_share": sum(r.killed < r.run for r in scored) / len(scored) if scored else None,
    }
