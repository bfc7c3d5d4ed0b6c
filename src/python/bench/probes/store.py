"""Where a task's probe summary is kept, and which stored summary is still the task's.

The probe set itself (:mod:`bench.probes.probe_set`) holds values observed in the library's own tests, so it
is never committed: it is rebuilt from the task's inputs on first use and kept in the action cache. What is
committed, in ``results/probes/<task_id>.json``, is its summary bound to the certificate it was made under
(the sha256 of ``results/certificates/<task_id>.json.gz``, like ``results/adequacy/``): the probe set's own
sha256 (a rebuild must give the same bytes), counts per target, why inputs were dropped or a target stayed
unprobed, and — when the task's adequacy was measured — what the probes make of each near miss the tests let
through: **killed by the probes** or **equivalent on probes**.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Mapping

from bench.probes.probe_set import ProbeSet


@dataclass(frozen=True)
class NearMissProbes:
    """The probes' verdict on the near misses a task's tests let through (``bench.gate.adequacy`` survivors)."""

    survivors: int  # survivors of the tests
    killed: tuple[tuple[str, str, int, int, int], ...]  # (file, operator, line, start, end) the probes tell apart
    # … and those every probe answers as the fix does, with the replacement the probes accept ("" without probes)
    equivalent: tuple[tuple[str, str, int, int, int, str], ...]
    note: str = ""  # why none could be replayed, when none could


@dataclass(frozen=True)
class ProbeSummary:
    task_id: str
    version: str
    certificate_sha256: str
    probe_set_sha256: str
    probes: int
    observed: int
    generated: int
    targets: tuple[tuple, ...]  # (file, qualname, module, calls, skipped, skip reason, probes)
    dropped: tuple[tuple[str, int], ...]
    note: str
    near_misses: NearMissProbes | None = None
    in_place: int = 0  # of the probes, those answered in place (bench.probes.in_place)

    def to_json(self) -> dict:
        out = {"task_id": self.task_id, "version": self.version, "certificate_sha256": self.certificate_sha256,
               "probe_set_sha256": self.probe_set_sha256, "probes": self.probes, "observed": self.observed,
               "generated": self.generated, "in_place": self.in_place, "targets": [list(t) for t in self.targets],
               "dropped": [list(d) for d in self.dropped], "note": self.note}
        if self.near_misses is not None:
            n = self.near_misses
            out["near_misses"] = {"survivors": n.survivors, "killed": [list(k) for k in n.killed],
                                  "equivalent": [list(e) for e in n.equivalent], "note": n.note}
        return out

    @classmethod
    def from_json(cls, data: dict) -> ProbeSummary:
        near = data.get("near_misses")
        return cls(data["task_id"], data["version"], data["certificate_sha256"], data["probe_set_sha256"],
                   data["probes"], data["observed"], data["generated"], tuple(tuple(t) for t in data["targets"]),
                   tuple(tuple(d) for d in data["dropped"]), data["note"],
                   None if near is None else NearMissProbes(near["survivors"], tuple(tuple(k) for k in near["killed"]),
                                                            tuple(tuple(e) for e in near["equivalent"]),
                                                            near.get("note", "")),
                   data.get("in_place", 0))


def summarise(probe_set: ProbeSet, certificate_sha256: str, near_misses: NearMissProbes | None) -> ProbeSummary:
    every = probe_set.checked
    per_target = [sum(p.target == i for p in every) for i in range(len(probe_set.targets))]
    targets = tuple((t.file, t.qualname, t.module, t.calls, t.skipped, t.skip_reason, n)
                    for t, n in zip(probe_set.targets, per_target))
    return ProbeSummary(probe_set.task_id, probe_set.version, certificate_sha256, probe_set.sha256,
                        probe_set.size, probe_set.count("observed"), probe_set.count("generated"), targets,
                        probe_set.dropped, probe_set.note, near_misses, len(every) - len(probe_set.probes))


def summary_file(root: Path, task_id: str) -> Path:
    return root / "results" / "probes" / f"{task_id}.json"


def write(root: Path, summary: ProbeSummary) -> Path:
    from bench.store.atomic import write_atomic

    text = json.dumps(summary.to_json(), indent=1, sort_keys=True, ensure_ascii=False) + "\n"
    return write_atomic(summary_file(root, summary.task_id), text.encode("utf-8"))


def read_current(root: Path, task_id: str, certificate_sha256: str) -> ProbeSummary | None:
    """The stored summary of the task if it was made under ``certificate_sha256``, else None."""
    path = summary_file(root, task_id)
    if not path.is_file() or not certificate_sha256:
        return None
    summary = ProbeSummary.from_json(json.loads(path.read_text(encoding="utf-8")))
    return summary if summary.certificate_sha256 == certificate_sha256 else None


def stats(summaries: Mapping[str, ProbeSummary | None]) -> dict:
    """Tasks, with a current summary, with probes; near-miss survivors of the tests, killed by the probes, and
    tasks where some survivor is equivalent on probes too."""
    present = [s for s in summaries.values() if s is not None]
    measured = [s.near_misses for s in present if s.near_misses is not None and s.near_misses.survivors]
    return {
        "tasks": len(summaries), "summarised": len(present), "with_probes": sum(s.probes > 0 for s in present),
        "probes": sum(s.probes for s in present),
        "survivors": sum(n.survivors for n in measured), "killed_by_probes": sum(len(n.killed) for n in measured),
        "tasks_with_survivors": len(measured),
        "tasks_still_surviving": sum(bool(n.equivalent) for n in measured),
    }


def current(root: Path, task_ids: Iterable[str]) -> dict[str, ProbeSummary | None]:
    from bench.gate.adequacy_store import certificate_sha256

    return {task_id: read_current(root, task_id, certificate_sha256(root, task_id)) for task_id in task_ids}
