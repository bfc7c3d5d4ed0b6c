"""Mine a mirror, write the candidates and the mine report, and optionally admit the candidates one by one.

Admission runs strictly one candidate at a time (each runs installs and K test runs in a sandbox). The
per-library cap counts admitted tasks: admission stops once the library holds `cap` tasks. Candidates the
pool already knows (admitted or dropped before) are not admitted twice, so an interrupted run resumes.
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path

from bench.errors import BenchError
from bench.mine.metadata import MetadataSession
from bench.mine.documents import DEFAULT_IMAGE, candidate_document, report_document
from bench.mine.miner import MineOptions, MineResult, library_name, mine
from bench.store.action_cache import write_atomic


TRIED = ("admitted", "dropped", "error")  # the outcomes of candidates admission ran (the others were skipped)


@dataclass(frozen=True)
class AdmitRecord:
    task_id: str
    outcome: str  # "admitted" | "dropped" | "known" | "over_library_cap" | "error" (harness failure, retried later)
    reason: str
    seconds: float
    phases: tuple[tuple[str, float], ...] = ()  # lock / environment / workspace / tests wall seconds (informative)


@dataclass(frozen=True)
class KnownTasks:
    """The task ids a pool has decided on, which mining does not propose again."""

    admitted: frozenset[str]
    dropped: frozenset[str]
    retired: frozenset[str]

    @property
    def ids(self) -> frozenset[str]:
        return self.admitted | self.dropped | self.retired

    def why(self, task_id: str) -> str:
        """"admitted", "dropped" or "retired" ("" for an id the pool does not know)."""
        return next((why for why in ("admitted", "dropped", "retired") if task_id in getattr(self, why)), "")


def known_to_pool(root: Path, retry: tuple[str, ...] = ()) -> KnownTasks:
    """Task ids already admitted (any tasks/<group>/) and already decided against (tasks/_dropped/, and the
    retired tasks of tasks/_retired/<group>/: a task retired by a stricter judgement or a reading by hand is
    not mined again).

    A drop whose reason starts with one of ``retry`` (e.g. ``lock_failed`` after the lock collector learnt to
    leave out a tool that no longer builds) does not count as known: its candidate is admitted again.
    """
    admitted = {p.stem for p in (root / "tasks").glob("*/*.json") if not p.parent.name.startswith("_")}
    dropped = {p.stem for p in (root / "tasks" / "_dropped").glob("*.json")}
    retired = {p.stem for p in (root / "tasks" / "_retired").glob("*/*.json") if not p.parent.name.startswith("_")}
    return KnownTasks(frozenset(admitted), frozenset(dropped - retried_ids(root, retry)), frozenset(retired))


def known_tasks(root: Path, retry: tuple[str, ...] = ()) -> tuple[set[str], set[str]]:
    """The admitted task ids, and the dropped or retired ones (:func:`known_to_pool`)."""
    known = known_to_pool(root, retry)
    return set(known.admitted), set(known.dropped | known.retired)


def skipped_as_known(result: MineResult, known: KnownTasks) -> dict[str, int]:
    """How many proposals mining left out because the pool knows their task id, by what the pool decided."""
    whys = [known.why(item.task_id) for item in result.filtered if item.reason == "known_task"]
    return {why: whys.count(why) for why in ("admitted", "dropped", "retired")}


def retried_ids(root: Path, retry: tuple[str, ...]) -> set[str]:
    """Dropped task ids whose drop reason starts with one of ``retry`` (reads the drop records)."""
    if not retry:
        return set()
    from bench.gate.drops import read_drop

    return {p.stem for p in (root / "tasks" / "_dropped").glob("*.json") if read_drop(p).reason.startswith(retry)}


def admitted_count(root: Path, repo: str) -> int:
    folder = root / "tasks" / library_name(repo)
    return len(list(folder.glob("*.json"))) if folder.is_dir() else 0


def mine_repository(git_dir: Path, repo: str, options: MineOptions, out: Path, *,
                    metadata: MetadataSession | None = None,
                    image: str = DEFAULT_IMAGE, ref: str | None = None) -> tuple[MineResult, tuple[Path, ...]]:
    """Mine and write `out/<task_id>.json` per candidate plus `out/mine-report-<lib>.json`."""
    result = mine(git_dir, repo, options, ref=ref)
    session = metadata or MetadataSession(enabled=False)
    looked_up = {c.task_id: session.lookup(repo, c.pr.number) for c in result.candidates}
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for candidate in result.candidates:
        path = out / f"{candidate.task_id}.json"
        write_atomic(path, _json(candidate_document(candidate, repo, image=image)))
        paths.append(path)
    report = report_document(result, options, looked_up)
    write_atomic(out / f"mine-report-{library_name(repo)}.json", _json(report))
    return result, tuple(paths)


def admit_candidates(paths: tuple[Path, ...], root: Path, repo: str, *, cap: int, mirror: Path | None,
                     sandbox_name: str, k: int = 3, max_targets: int | None = None,
                     retry: tuple[str, ...] = (), progress=None, log_dir: Path | None = None) -> tuple[AdmitRecord, ...]:
    """Admit candidate files in order until the library holds `cap` admitted tasks.

    With ``log_dir`` each candidate tried is added to its admission log as soon as it is decided, so a run
    that is interrupted keeps the outcomes and timings of everything it finished."""
    from bench.gate.admit import admit
    from bench.gate.phase_clock import measuring, rounded

    say = progress or (lambda text: print(text, file=sys.stderr, flush=True))
    records = []
    retried = retried_ids(root, retry)  # once: a candidate dropped again in this run is not met again
    for path in paths:
        doc = json.loads(path.read_text())
        admitted, dropped = known_tasks(root)
        dropped -= retried
        if doc["task_id"] in admitted or doc["task_id"] in dropped:
            records.append(AdmitRecord(doc["task_id"], "known", "already in the pool or dropped before", 0.0))
            continue
        if admitted_count(root, repo) >= cap:
            records.append(AdmitRecord(doc["task_id"], "over_library_cap", f"cap {cap} reached", 0.0))
            continue
        say(f"admitting {doc['task_id']} …")
        started = time.monotonic()
        try:
            with measuring() as clock:
                result = admit(doc, root, k=k, sandbox_name=sandbox_name, mirror=mirror, max_targets=max_targets)
        except BenchError as error:  # one broken candidate must not end the run; it is reported, not dropped
            seconds = round(time.monotonic() - started, 1)
            say(f"error {doc['task_id']}: {type(error).__name__}: {str(error)[:300]}")
            records.append(AdmitRecord(doc["task_id"], "error", f"{type(error).__name__}: {str(error)[:300]}",
                                       seconds))
            if log_dir is not None:
                write_admission_log(log_dir, repo, records[-1:])
            continue
        seconds = round(time.monotonic() - started, 1)
        f2p = len(result.certificate.sets.fail_to_pass) if result.certificate else 0
        outcome = "admitted" if result.admitted else "dropped"
        say(f"{outcome} {doc['task_id']}: {result.reason} f2p={f2p} ({seconds:.0f}s)")
        records.append(AdmitRecord(doc["task_id"], outcome, result.reason, seconds,
                                   tuple(rounded(clock).items())))
        if log_dir is not None:
            write_admission_log(log_dir, repo, records[-1:])
    return tuple(records)


def write_admission_log(out: Path, repo: str, records: tuple[AdmitRecord, ...] | list[AdmitRecord]) -> Path:
    """The admission outcomes of this run beside the mine report (timings are informative, not hashed)."""
    path = out / f"admit-log-{library_name(repo)}.json"
    previous = json.loads(path.read_text()) if path.exists() else []
    fresh = {r.task_id for r in records if r.outcome in TRIED}
    merged = [r for r in previous if r["task_id"] not in fresh] + [_log_entry(r) for r in records if r.outcome in TRIED]
    write_atomic(path, _json(merged))
    return path


def _log_entry(record: AdmitRecord) -> dict:
    entry = {"task_id": record.task_id, "outcome": record.outcome, "reason": record.reason,
             "seconds": record.seconds}
    if record.phases:
        entry["phases"] = dict(record.phases)
    return entry


def options_with_pool(options: MineOptions, root: Path, repo: str, known: KnownTasks) -> MineOptions:
    """The options seen against the pool: its admitted tasks count against the cap, known ids are skipped."""
    return replace(options, already_admitted=admitted_count(root, repo), known_task_ids=known.ids)


def _json(data) -> bytes:
    return (json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode()


def write_mining_record(root: Path, repo: str, report: dict, records: tuple[AdmitRecord, ...]) -> Path:
    """`tasks/_mining/<library>.json`: the last mining run of a library — its settings, the branch and head it
    walked, its counts, and what admission did with each candidate, so candidates never tried (admission
    stopped at the cap, or the miner's limit cut them) stay visible in `bench pool stats`."""
    outcomes: dict[str, list[str]] = {}
    for record in records:
        outcomes.setdefault(record.outcome, []).append(record.task_id)
    cut = [f["sha"] for f in report["filtered"] if f["reason"] in ("over_limit", "over_library_cap")]
    never = outcomes.get("over_library_cap", []) if records else [c["task_id"] for c in report["candidates"]]
    document = {
        "repo": repo, "branch": report["branch"], "head": report["head"], "settings": report["options"],
        "counts": report["counts"],
        "admission": {outcome: len(ids) for outcome, ids in sorted(outcomes.items())},
        "never_tried": sorted(never),
        "cut_by_miner": len(cut),
        "stopped": _stopped(report, records),
    }
    path = root / "tasks" / "_mining" / f"{library_name(repo)}.json"
    write_atomic(path, _json(document))
    return path


def _stopped(report: dict, records: tuple[AdmitRecord, ...]) -> str:
    capped = [r for r in records if r.outcome == "over_library_cap"]
    if capped:
        return capped[0].reason  # "cap N reached"
    if not records:
        return "not admitted (mined only)"
    reasons = {f["reason"] for f in report["filtered"]}
    if "over_limit" in reasons:
        return f"miner limit {report['options']['limit']}"
    return "every candidate tried"


def stale_head_warning(git_dir: Path, branch: str | None) -> str:
    """A mirror whose HEAD names a branch long behind another (a development branch renamed, a default branch
    left behind) hides every later fix: which branch is newer and how to mine it ("" when none is 90+ days)."""
    from datetime import date

    from bench.mine._history import branch_dates, default_branch

    walked = branch or default_branch(git_dir)
    dates = branch_dates(git_dir)
    by_ref = dict(dates)
    newest, newest_day = dates[0] if dates else (walked, "")
    day = by_ref.get(walked if walked.startswith("refs/") else f"refs/heads/{walked}", "")
    if not day or not newest_day or (date.fromisoformat(newest_day) - date.fromisoformat(day)).days <= 90:
        return ""
    return (f"{walked} ends {day}, {newest} {newest_day}: mine the main development branch with "
            f"--branch {newest.removeprefix('refs/heads/')}")
