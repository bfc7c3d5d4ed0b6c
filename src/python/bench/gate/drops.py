"""Dropping a candidate: the drops decided outside the gate's runs (no lock, a duplicate of an admitted task),
the record, `tasks/_dropped/<task_id>.json`, and nothing else of the candidate left in the checkout.

The record holds the reason and the candidate (and, where they help, the modules that failed to collect and
the judgement of the change). A drop the gate decided from its runs also names what ran (``ran``): the sides
and how many runs each (a side stops at its first decisive run), and, when no test flipped, the tests that did
not, each with its outcomes at base and with the fix (the first :data:`LISTED`, and how many there were).
Records written before they named what ran read with ``ran`` None (:func:`read_drop`).

A dropped candidate's own lock is removed: it was resolved for this candidate only, and a lock left behind
would be taken for a task's. A lock the candidate shares (the synthetic tasks') or that a spec of the pool
names (the same task admitted or retired before) stays.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from bench.errors import SpecError
from bench.gate.certify import Certificate, failure_summary
from bench.spec.load import discover, load_all
from bench.spec.model import TaskSpec
from bench.store.action_cache import write_atomic

LISTED = 20  # tests that did not flip, named in a drop record; the rest are counted


@dataclass(frozen=True)
class NotFlipped:
    test_id: str
    base: str  # its outcome in the base runs ("failed|passed" when they differ, "not run" when none ran)
    fix: str  # the same with the fix


@dataclass(frozen=True)
class Ran:
    """What the gate ran before it dropped a candidate."""

    runs: tuple[tuple[str, int], ...]  # (side, runs), in the order the sides ran
    not_flipped: tuple[NotFlipped, ...] = ()  # the first LISTED, when no test flipped
    not_flipped_count: int = 0

    def to_json(self) -> dict:
        return {"runs": dict(self.runs), "not_flipped_count": self.not_flipped_count,
                "not_flipped": [{"test_id": t.test_id, "base": t.base, "fix": t.fix} for t in self.not_flipped]}

    @classmethod
    def from_json(cls, data: dict) -> "Ran":
        listed = tuple(NotFlipped(t["test_id"], t["base"], t["fix"]) for t in data.get("not_flipped", ()))
        return cls(tuple(data["runs"].items()), listed, int(data.get("not_flipped_count", len(listed))))


@dataclass(frozen=True)
class DropRecord:
    task_id: str
    reason: str
    ran: Ran | None  # None: dropped before the gate ran, or a record written before records named what ran


def ran_of(cert: Certificate) -> Ran:
    sides = tuple(dict.fromkeys(run.side for run in cert.runs))
    runs = tuple((side, sum(run.side == side for run in cert.runs)) for side in sides)
    if cert.sets.fail_to_pass:
        return Ran(runs)
    ids = sorted({test_id for run in cert.runs for test_id, _ in run.results})
    listed = tuple(NotFlipped(t, _outcomes(cert, "base", t), _outcomes(cert, "fix", t)) for t in ids[:LISTED])
    return Ran(runs, listed, len(ids))


def _outcomes(cert: Certificate, side: str, test_id: str) -> str:
    seen = sorted({run.outcome_of(test_id) for run in cert.runs if run.side == side})
    return "|".join(seen) or "not run"


def lock_drop_reason(message: str) -> str:
    """``old_code_does_not_run: <error>`` when the repository's own code failed while its requirements were
    read (too old for the image: try an older image), else ``lock_failed: <what pip said>``."""
    from bench.environment.lock import backend_failure, old_code_failure

    cause = old_code_failure(message)
    if cause:
        return f"old_code_does_not_run: {cause}"
    return f"lock_failed: {backend_failure(message) or failure_summary(message)}"


def find_duplicate(spec: TaskSpec, cert: Certificate, root: Path,
                   others: list[TaskSpec] | None = None) -> str | None:
    """The task id of an admitted task of the same repo with the same fix commit or the same target tests."""
    for other in (others if others is not None else load_all(discover(root))):
        if other.task_id == spec.task_id or other.repo != spec.repo:
            continue
        same_fix = bool(spec.fix_sha) and other.fix_sha == spec.fix_sha
        same_mutation = spec.mutation is not None and other.mutation is not None and \
            (other.mutation.file, other.mutation.start, other.mutation.replacement) == \
            (spec.mutation.file, spec.mutation.start, spec.mutation.replacement)
        same_targets = set(other.fail_to_pass) == set(cert.sets.fail_to_pass)
        if same_fix or same_mutation or same_targets:
            return other.task_id
    return None


def record_drop(candidate: dict, reason: str, root: Path, *, collection_errors: tuple[str, ...] = (),
                judgement: dict | None = None, ran: Ran | None = None, fail_to_pass: tuple[str, ...] = ()) -> Path:
    """``tasks/_dropped/<task_id>.json``. A candidate dropped by its judgement keeps the tests the gate found it
    flips (``fail_to_pass``): two hand readings may still show it a bug fix (scripts/pr_readings.py reads such
    drops), and then admission takes it."""
    path = root / "tasks" / "_dropped" / f"{candidate['task_id']}.json"
    doc = {"reason": reason, "candidate": candidate}
    if fail_to_pass:
        doc["fail_to_pass"] = list(fail_to_pass)
    if collection_errors:  # which test modules could not be imported: where to look first
        doc["collection_errors"] = list(collection_errors)
    if judgement is not None:  # what the change was judged to be, and from which signals
        doc["judgement"] = judgement
    if ran is not None:  # without it, what ran is only in the action cache
        doc["ran"] = ran.to_json()
    write_atomic(path, (json.dumps(doc, indent=2, sort_keys=True) + "\n").encode())
    return path


def read_drop(path: Path) -> DropRecord:
    try:
        data = json.loads(path.read_text())
        ran = Ran.from_json(data["ran"]) if "ran" in data else None
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
        raise SpecError(f"unreadable drop record: {error}", kind="bad_drop_record", path=str(path)) from error
    return DropRecord(path.stem, str(data.get("reason", "")), ran)


def collection_errors_of(cert: Certificate) -> tuple[str, ...]:
    """``side: module`` for every module a run could not collect, and ``side: no report`` for a run without
    a JUnit report (pytest did not get as far as writing one)."""
    found = {f"{run.side}: {test_id}" for run in cert.runs for test_id in run.collection_errors}
    found |= {f"{run.side}: no report" for run in cert.runs if not run.had_report}
    return tuple(sorted(found))


def forget_lock(spec: TaskSpec, root: Path) -> None:
    """Remove a dropped candidate's lock unless it is shared or a spec of the pool (or a retired one) names it."""
    from bench.gate.shared_lock import shares_lock

    path = root / spec.lockfile
    if not path.exists() or shares_lock(spec):
        return
    if any(json.loads(p.read_text()).get("lockfile") == spec.lockfile for p in discover(root, retired=True)):
        return
    path.unlink()
