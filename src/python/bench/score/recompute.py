"""Recomputing results from the inputs their hashes name, and checking stored prompt/response hashes. Records
are ``bench.loop.records.UnitRecord`` as read from a results file."""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

from bench.loop.records import UnitRecord

@dataclass(frozen=True)
class Check:
    unit: str
    status: str  # "identical" | "different" | "ok" | "not-kept" | "mismatch" | "missing"
    detail: str = ""


def first_difference(a: Any, b: Any, path: str = "") -> str | None:
    """JSON-pointer-like path of the first difference between two JSON values (None when equal)."""
    if type(a) is not type(b):
        return path or "/"
    if isinstance(a, dict):
        for key in sorted(set(a) | set(b)):
            if key not in a or key not in b:
                return f"{path}/{key}"
            found = first_difference(a[key], b[key], f"{path}/{key}")
            if found:
                return found
        return None
    if isinstance(a, list):
        if len(a) != len(b):
            return f"{path} (length {len(a)} ≠ {len(b)})"
        for index, (x, y) in enumerate(zip(a, b)):
            found = first_difference(x, y, f"{path}/{index}")
            if found:
                return found
        return None
    return None if a == b else (path or "/")


def unit_name(record: UnitRecord) -> str:
    return f"{record.task_id} {record.model} {record.condition} #{record.sample}"


def record_hashes(record: UnitRecord) -> list[str]:
    """The prompt and response hashes a record cites (its turns' too)."""
    shas = [record.prompt_sha256, record.response_sha256, *(turn.response_sha256 for turn in record.turns or ())]
    return [sha for sha in shas if sha]


def keeps_third_party_text(record: UnitRecord) -> bool:
    """A real-code task's prompt quotes the library's source (and a reply may echo it): such store files stay
    on the machine that ran the model and are never committed (see :func:`prune_third_party`)."""
    return record.task_kind != "synthetic"


def check_stored_hashes(records: Iterable[UnitRecord], store: Path) -> list[Check]:
    """Non-deterministic records: every prompt/response hash must match a stored file with that content.

    An absent file of a real-code task is ``not-kept`` (it was left out on purpose, not lost); an altered file,
    or an absent one of a synthetic task, is a ``mismatch``.
    """
    checks = []
    for record in records:
        altered = [s for s in record_hashes(record) if (store / s[:2] / s).is_file() and not _stored_ok(store, s)]
        absent = [s for s in record_hashes(record) if not (store / s[:2] / s).is_file()]
        if altered or (absent and not keeps_third_party_text(record)):
            detail = f"missing or altered: {', '.join(b[:12] for b in altered + absent)}"
            checks.append(Check(unit_name(record), "mismatch", detail))
        elif absent:
            checks.append(Check(unit_name(record), "not-kept", "real-code task: prompt and reply not committed"))
        else:
            checks.append(Check(unit_name(record), "ok"))
    return checks


def prune_third_party(records: Iterable[UnitRecord], store: Path) -> int:
    """Delete every store file no synthetic record cites: those only real-code tasks cite (they quote the
    library), and those no record cites any more (units scored again leave their earlier files behind, and
    nothing says what those quote)."""
    keep = {sha for r in records if not keeps_third_party_text(r) for sha in record_hashes(r)}
    removed = 0
    for path in sorted(store.glob("*/*")) if store.is_dir() else ():
        if path.is_file() and path.name not in keep:
            path.unlink()
            removed += 1
    return removed


def _stored_ok(store: Path, sha: str) -> bool:
    path = store / sha[:2] / sha
    return path.is_file() and hashlib.sha256(path.read_bytes()).hexdigest() == sha


def recompute(records: list[UnitRecord], root: Path, *, sandbox_name: str, workers: int = 2,
              keep: Path | None = None) -> list[Check]:
    """Deterministic records: run the same units again from scratch (no verdict cache) and compare.

    With ``keep``, the fresh records go to ``keep/<model>-<turns>/`` instead of a temporary folder: a run
    stopped part way resumes there (the runner's own resume), and a group that differs leaves its fresh
    records there to read; a group found identical is removed."""
    from bench.score.runner import run
    from bench.score.units import record_key
    from bench.spec.load import discover, load_all

    specs = {s.task_id: s for s in load_all(discover(root, retired=True))}
    checks: list[Check] = []
    groups: dict[tuple, list[UnitRecord]] = {}
    for record in records:
        turns = (record.budget or 0) if record.kind != "attempt" else 0
        groups.setdefault((record.model, turns), []).append(record)
    for (model, turns), group in sorted(groups.items()):
        missing = sorted({r.task_id for r in group} - set(specs))
        if missing:
            checks += [Check(unit_name(r), "different", "task no longer exists") for r in group
                       if r.task_id in missing]
        with _fresh_folder(keep, f"{model}-{turns}") as scratch:
            plan = replay_plan(group, specs, scratch, root, workers=workers, sandbox_name=sandbox_name)
            fresh = {record_key(r): r for r in run(plan).records}
        before = len(checks)
        for record in group:
            again = fresh.get(record.key)
            if again is None:
                checks.append(Check(unit_name(record), "different", "unit not produced again"))
                continue
            where = first_difference(comparable(record.to_json()), comparable(again))
            checks.append(Check(unit_name(record), "identical" if where is None else "different",
                                f"first difference at {where}" if where else ""))
        if keep is not None and all(c.status == "identical" for c in checks[before:]):
            shutil.rmtree(keep / _folder_name(f"{model}-{turns}"), ignore_errors=True)
    if keep is not None and keep.is_dir() and not any(keep.iterdir()):
        keep.rmdir()
    return checks


def replay_plan(group: list[UnitRecord], specs: dict, out_dir: Path, root: Path, *, workers: int,
                sandbox_name: str):
    """The plan that makes the units of ``group`` (one model, one turn budget) again from scratch, with the
    settings their records name and no verdict cache; tasks missing from ``specs`` are left out."""
    from bench.score.runner import RunPlan

    first = group[0]
    tasks = tuple(specs[t] for t in sorted({r.task_id for r in group}) if t in specs)
    return RunPlan(model_id=first.model, specs=tasks, out_dir=out_dir, root=root,
                   samples=max(r.sample for r in group) + 1,
                   turns=(first.budget or 0) if first.kind != "attempt" else 0,
                   conditions=tuple(sorted({r.condition for r in group if r.kind == "loop"})) or ("full",),
                   resample=any(r.kind == "resample" for r in group), workers=workers, sandbox_name=sandbox_name,
                   use_cache=False, feed_divergences=any(r.feed_divergences for r in group))


def _folder_name(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text)


@contextlib.contextmanager
def _fresh_folder(keep: Path | None, name: str):
    if keep is None:
        with tempfile.TemporaryDirectory(prefix="bench-verify-") as scratch:
            yield Path(scratch)
    else:
        yield keep / _folder_name(name)


# What the run a unit was made in says about itself, not about the unit: the benchmark commit, and the digest
# of the task selection (a run resumed after the pool grew holds units of several). Spec, lock, image,
# certificate and workspace hashes stay compared, with everything the unit produced.
RUN_CONTEXT = ("benchmark_commit", "pool_sha256")


# A runaway candidate is stopped by whichever limit it reaches first, time or memory, and which one that is
# depends on the machine's speed and load: the two reasons compare alike (outcome, failing tests and signature
# stay compared).
RESOURCE_LIMIT_REASONS = frozenset({"tests timed out", "tests ran out of memory"})
RESOURCE_LIMIT = "tests reached a resource limit (time or memory)"


def comparable(record: dict) -> dict:
    """The run's context may legitimately differ between the run and the check; nothing else may."""
    out = json.loads(json.dumps(record))
    for name in RUN_CONTEXT:
        out.get("integrity", {}).pop(name, None)
    return _resource_limits_alike(out)


def _resource_limits_alike(value):
    if isinstance(value, dict):
        return {key: RESOURCE_LIMIT if key == "reason" and item in RESOURCE_LIMIT_REASONS
                else _resource_limits_alike(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_resource_limits_alike(item) for item in value]
    return value
