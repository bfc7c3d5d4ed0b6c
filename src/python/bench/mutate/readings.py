"""Mutation tasks read by hand: which reading saw each one, and whether its mutant gives its site away.

The rules of ``anomalies``, ``contradictions`` and the modules they read refuse the giveaways a rule can state;
readers find more (docs/measurements/mutation-audit.md). So every mutation task of the published pool is also
read by hand under the stated rule (G1 a stub, G2 a form the file does not use, G3 a lint-level anomaly, G4 a
break of an evident pattern, G5 a comment next to the site that the mutant contradicts) and kept only while no
reader calls it a giveaway. ``tasks/_readings/mutation.json``
records every verdict, kept or retired, by task id: a list of readings, each with the reading it came from, the
verdict and the reader's reason (docs/measurements/mutation-reading-brief.md is the readers' brief).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from bench.errors import SpecError

RECORD = Path("tasks") / "_readings" / "mutation.json"
VERDICT = re.compile(r"^(no|no \(borderline\)|yes(?: \(borderline\))?: G[1-5]\b.*)$")


@dataclass(frozen=True)
class Reading:
    reading: str
    verdict: str
    why: str

    @property
    def giveaway(self) -> bool:
        return self.verdict.startswith("yes")


@dataclass(frozen=True)
class TaskReadings:
    task_id: str
    readings: tuple[Reading, ...]

    @property
    def giveaway(self) -> bool:
        """A task any reader called a giveaway stays one: readers miss far more than they invent."""
        return any(r.giveaway for r in self.readings)


def _reading(task_id: str, entry: object, source: str) -> Reading:
    if not isinstance(entry, dict) or not all(isinstance(entry.get(k), str) and entry[k]
                                              for k in ("reading", "verdict", "why")):
        raise SpecError(f"{task_id}: each reading needs non-empty 'reading', 'verdict' and 'why' strings",
                        kind="readings", path=source)
    if not VERDICT.match(entry["verdict"]):
        raise SpecError(f"{task_id}: verdict {entry['verdict']!r} is not 'no', 'no (borderline)' or "
                        f"'yes: G1'..'yes: G5'", kind="readings", path=source)
    return Reading(entry["reading"], entry["verdict"], entry["why"])


def parse(data: object, source: str = str(RECORD)) -> dict[str, TaskReadings]:
    """Readings from the record's JSON value; a malformed entry is an error naming the task."""
    if not isinstance(data, dict):
        raise SpecError("expected an object of task id -> list of readings", kind="readings", path=source)
    found = {}
    for task_id, entries in data.items():
        if not isinstance(entries, list) or not entries:
            raise SpecError(f"{task_id}: expected a non-empty list of readings", kind="readings", path=source)
        found[task_id] = TaskReadings(task_id, tuple(_reading(task_id, e, source) for e in entries))
    return found


def load(root: Path) -> dict[str, TaskReadings]:
    path = root / RECORD
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise SpecError(f"not JSON: {exc}", kind="readings", path=str(path)) from exc
    return parse(data, str(path))


def summary(readings: dict[str, TaskReadings], task_ids) -> dict:
    """How many of ``task_ids`` were read and kept, read as giveaways, or never read."""
    counts = {"read": 0, "giveaway": 0, "unread": 0}
    for task_id in task_ids:
        reading = readings.get(task_id)
        if reading is None:
            counts["unread"] += 1
        else:
            counts["giveaway" if reading.giveaway else "read"] += 1
    return counts
