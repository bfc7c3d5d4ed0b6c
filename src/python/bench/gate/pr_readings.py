"""PR tasks read by hand: every reading of each task, and whether a reader called it no bug fix.

The judgement (``bench.gate.judgement``) admits what the repository's own words and the diff's shapes let a rule
decide; readers find more (docs/measurements/pr-audit.md). So every PR task of the published pool is read by
hand, twice and independently, under the readers' brief (docs/measurements/pr-reading-brief.md): R1 a real bug
against documented or clearly intended behaviour, R2 the tests check that behaviour, R3 solvable from what the
prompt shows, R4 no pin of a behaviour the project later reversed. A verdict is ``good``,
``questionable: R<n>[, R<n>]`` or ``false: R<n>[, R<n>]``; a task leaves the pool when any reader calls it
false. ``tasks/_readings/pr.json`` records every verdict, kept or retired, by task id: a list of readings, each
with the reading it came from, the verdict and the reader's reason.

A reader writes a Markdown table, one row per task: ``| # | task | verdict | why |``; :func:`table_rows` reads it
and :func:`merge` adds it to the record (``scripts/pr_readings.py import``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from bench.errors import SpecError

RECORD = Path("tasks") / "_readings" / "pr.json"
READINGS_NEEDED = 2
CRITERIA = ("R1", "R2", "R3", "R4")
VERDICT = re.compile(r"^(good|(questionable|false): R[1-4](, R[1-4])*)$")

_UNESCAPED_PIPE = re.compile(r"(?<!\\)\|")
_CRITERION = re.compile(r"\bR([1-4])\b")


def _criteria(verdict: str) -> set[str]:
    return {f"R{n}" for n in _CRITERION.findall(verdict)}


@dataclass(frozen=True)
class Reading:
    reading: str
    verdict: str
    why: str

    @property
    def false(self) -> bool:
        return self.verdict.startswith("false")


@dataclass(frozen=True)
class TaskReadings:
    task_id: str
    readings: tuple[Reading, ...]

    @property
    def false(self) -> bool:
        """A task any reader called no bug fix stays one: readers miss far more than they invent."""
        return any(r.false for r in self.readings)

    @property
    def read_enough(self) -> bool:
        """Read by at least two differently named readings."""
        return len({r.reading for r in self.readings}) >= READINGS_NEEDED

    @property
    def bug_confirmed(self) -> bool:
        """Two independent readings, neither false, both holding R1 (a real bug against documented or clearly
        intended behaviour, found in the docstring, the docs, a spec it implements or an obvious crash): the
        readers' stated evidence, which the judgement takes where a change's title is its only other word."""
        holding = {r.reading for r in self.readings if not r.false and "R1" not in _criteria(r.verdict)}
        return not self.false and len(holding) >= READINGS_NEEDED


def normalise(cell: str, *, where: str = "") -> str:
    """A reader's verdict cell as the record writes it: ``good``, ``questionable: R2``, ``false: R1, R4``.

    Emphasis and case are dropped, "false admission" reads as false, and the criteria named anywhere in the cell
    are kept in order, once each. A questionable or false verdict must name at least one criterion."""
    low = cell.replace("*", "").strip().lower()
    for word in ("good", "questionable", "false"):
        if low.startswith(word):
            break
    else:
        raise SpecError(f"cannot read the verdict {cell!r} (want good, questionable: Rn or false: Rn)",
                        kind="readings", path=where)
    if word == "good":
        if _CRITERION.search(cell.upper()):
            raise SpecError(f"a good verdict names no failed criterion: {cell!r}", kind="readings", path=where)
        return "good"
    codes = sorted({f"R{n}" for n in _CRITERION.findall(cell.upper())})
    if not codes:
        raise SpecError(f"the verdict {cell!r} names no criterion (R1..R4) it fails", kind="readings", path=where)
    return f"{word}: {', '.join(codes)}"


def table_rows(text: str, *, where: str = "") -> list[tuple[str, str, str]]:
    """(task, verdict, why) of each numbered row of a reader's table ``| # | task | verdict | why |``; a pipe
    inside a cell is written ``\\|``. A row without a reason, or one task twice, is refused."""
    rows: list[tuple[str, str, str]] = []
    for number, line in enumerate(text.splitlines(), 1):
        cells = [c.strip() for c in _UNESCAPED_PIPE.split(line.strip())[1:-1]]
        if not line.lstrip().startswith("|") or len(cells) < 4 or not cells[0].isdigit():
            continue
        if len(cells) > 4:
            raise SpecError(f"line {number}: {len(cells)} cells, want 4 (# | task | verdict | why); "
                            "escape a pipe inside a cell as \\|", kind="readings", path=where)
        task, verdict, why = cells[1].strip("`"), normalise(cells[2], where=where), cells[3].replace("\\|", "|")
        if not why:
            raise SpecError(f"line {number}: {task} has no reason", kind="readings", path=where)
        rows.append((task, verdict, why))
    seen = [task for task, _, _ in rows]
    twice = sorted({t for t in seen if seen.count(t) > 1})
    if twice:
        raise SpecError(f"tasks read twice in one table: {twice}", kind="readings", path=where)
    return rows


def merge(record: dict, rows: Iterable[tuple[str, str, str]], label: str) -> dict:
    """The record with each row added as reading ``label``: beside the task's other readings, replacing one of
    the same name (a reader who re-reads corrects themselves). The input is not changed."""
    if not label.strip():
        raise SpecError("a reading needs a name", kind="readings")
    merged = {task: list(entries) for task, entries in record.items()}
    for task, verdict, why in rows:
        kept = [entry for entry in merged.get(task, []) if entry["reading"] != label]
        merged[task] = kept + [{"reading": label, "verdict": verdict, "why": why}]
    return dict(sorted(merged.items()))


def render(record: dict) -> str:
    """The record's file text; refused (SpecError) when the loader would refuse it."""
    text = json.dumps(dict(sorted(record.items())), indent=1, ensure_ascii=False) + "\n"
    parse(json.loads(text))
    return text


def _reading(task_id: str, entry: object, source: str) -> Reading:
    if not isinstance(entry, dict) or not all(isinstance(entry.get(k), str) and entry[k]
                                              for k in ("reading", "verdict", "why")):
        raise SpecError(f"{task_id}: each reading needs non-empty 'reading', 'verdict' and 'why' strings",
                        kind="readings", path=source)
    if not VERDICT.match(entry["verdict"]):
        raise SpecError(f"{task_id}: verdict {entry['verdict']!r} is not 'good', 'questionable: Rn' or "
                        "'false: Rn'", kind="readings", path=source)
    return Reading(entry["reading"], entry["verdict"], entry["why"])


def parse(data: object, source: str = str(RECORD)) -> dict[str, TaskReadings]:
    """Readings from the record's JSON value; a malformed entry is an error naming the task."""
    if not isinstance(data, dict):
        raise SpecError("expected an object of task id -> list of readings", kind="readings", path=source)
    found = {}
    for task_id, entries in data.items():
        if not isinstance(entries, list) or not entries:
            raise SpecError(f"{task_id}: expected a non-empty list of readings", kind="readings", path=source)
        readings = tuple(_reading(task_id, e, source) for e in entries)
        names = [r.reading for r in readings]
        if len(set(names)) != len(names):
            raise SpecError(f"{task_id}: one reading recorded twice", kind="readings", path=source)
        found[task_id] = TaskReadings(task_id, readings)
    return found


def load_record(root: Path) -> dict:
    """The record's raw JSON value ({} when there is none yet)."""
    path = root / RECORD
    if not path.exists():
        return {}
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise SpecError(f"not JSON: {exc}", kind="readings", path=str(path)) from exc


def load(root: Path) -> dict[str, TaskReadings]:
    return parse(load_record(root), str(root / RECORD))


def unread(readings: dict[str, TaskReadings], task_ids: Iterable[str]) -> list[str]:
    """The tasks of ``task_ids`` not yet read by two readings, sorted."""
    return sorted(t for t in task_ids if t not in readings or not readings[t].read_enough)


def summary(readings: dict[str, TaskReadings], task_ids: Iterable[str]) -> dict:
    """How many of ``task_ids`` were read twice and kept, read false by any reader, read once, never read."""
    counts = {"read": 0, "false": 0, "read_once": 0, "unread": 0}
    for task_id in task_ids:
        found = readings.get(task_id)
        if found is None:
            counts["unread"] += 1
        elif found.false:
            counts["false"] += 1
        else:
            counts["read" if found.read_enough else "read_once"] += 1
    return counts


UNCLEAR_DROP = "not_a_bugfix:unclear"


def readable_drops(root: Path) -> list:
    """The PR candidates admission dropped only because nothing but their title called them a fix
    (``not_a_bugfix:unclear``), as specs with the tests the gate found them flip: what two readers may show a
    bug fix after all (``bench.gate.judge_inputs.read_as_bug``), for ``bench mine --admit --retry
    not_a_bugfix:unclear`` to take. Drop records written before they kept those tests are left out."""
    from bench.spec.load import spec_from_document

    specs = []
    for path in sorted((root / "tasks" / "_dropped").glob("*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        candidate = data.get("candidate") if isinstance(data, dict) else None
        # Only a kind admission judges (a PR) is ever dropped for its judgement.
        if not isinstance(candidate, dict) or data.get("reason") != UNCLEAR_DROP or not data.get("fail_to_pass"):
            continue
        document = dict(candidate, fail_to_pass=list(data["fail_to_pass"]), pass_to_pass=[])
        specs.append(spec_from_document(document, path=str(path)))
    return specs
