"""What one scored unit is, and the parts of its record (``bench.loop.records.UnitRecord``) that every unit kind
shares."""

from __future__ import annotations

from dataclasses import dataclass

from bench import __version__
from bench.loop.records import Outcome, UnitRecord, Usage
from bench.model.protocol import Completion
from bench.spec.model import TaskSpec
from bench.store.canonical import sha256_bytes

RUNNER_VERSION = f"runner-v1/{__version__}"
CONDITIONS = ("full", "count-only")


@dataclass(frozen=True)
class Unit:
    spec: TaskSpec
    model_id: str
    kind: str  # "attempt" | "loop" | "resample"
    condition: str  # "single" for attempts; "full" | "count-only" for loops; "resample"
    sample: int
    patch: str | None = None  # an attempt given as a prediction's unified diff instead of a model's reply

    @property
    def key(self) -> tuple[str, str, str, int]:
        return (self.spec.task_id, self.model_id, self.condition, self.sample)


def record_key(record: dict) -> tuple[str, str, str, int]:
    """:attr:`UnitRecord.key` of a record as read from a JSONL file."""
    return (record["task_id"], record["model"], record["condition"], record["sample"])


def unit_record(unit: Unit, integrity: dict, benchmark: dict, fields: dict) -> UnitRecord:
    """The unit's record: what every kind shares, then ``fields`` (record fields by name) its kind produced."""
    spec = unit.spec
    return UnitRecord(kind=unit.kind, task_id=spec.task_id, task_kind=spec.kind, library=spec.library,
                      difficulty=spec.difficulty, model=unit.model_id, condition=unit.condition, sample=unit.sample,
                      runner_version=RUNNER_VERSION, integrity=tuple({**integrity, **benchmark}.items()), **fields)


def failed_record(unit: Unit, benchmark: dict, reason: str) -> UnitRecord:
    """The record of a unit that failed before it was scored (its task could not be prepared, its worker died)."""
    return unit_record(unit, {}, benchmark, {"outcome": Outcome.INFRASTRUCTURE_ERROR, "reason": reason[:500]})


def usage_of(completion: Completion | None) -> Usage:
    if completion is None:
        return Usage(0, 0, 0)
    return Usage(completion.prompt_tokens, completion.completion_tokens, completion.reasoning_tokens)


def response_sha(completion: Completion | None) -> str:
    return sha256_bytes(completion.text.encode("utf-8")) if completion is not None else ""
