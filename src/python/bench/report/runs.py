"""Read result records (one JSON object per JSONL line) into typed runs for the report.

The fields read are listed in ``bench/report/README.md``. Records of kinds other than ``loop`` and ``attempt``
are counted and skipped, so the report can be built from a results file that also holds other records. A unit
recorded twice (same kind, model, task, condition, sample) keeps its first occurrence; the report says how
many were dropped. Every other part of the report is independent of record order.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from bench.errors import CheckFailed
from bench.loop.convergence import NO_CANDIDATE, Outcome, Trajectory, Turn, classify
from bench.report import markov
from bench.loop.records import OUTCOMES

NO_CANDIDATE_OUTCOMES = ("invalid_edit", "model_timeout", "infrastructure_error")
CLASSES = tuple(outcome.value for outcome in Outcome)
UNKNOWN = "unknown"


@dataclass(frozen=True)
class LoopTurn:
    turn: int
    outcome: str
    signature: str
    candidate_digest: str  # NO_CANDIDATE for turns that emitted no applicable candidate
    compiles: bool
    failing: tuple[str, ...]
    worker_tokens: int
    controller_tokens: int
    resolved: bool | None = None  # solved and no pass_to_pass broken; None: as solved (see __post_init__)

    def __post_init__(self) -> None:
        if self.resolved is None:
            object.__setattr__(self, "resolved", self.outcome == "solved")

    @property
    def state(self) -> str:
        """This turn's state in the Markov model (see ``bench.report.markov``)."""
        if self.resolved:
            return markov.SOLVED
        if self.outcome in NO_CANDIDATE_OUTCOMES:
            return markov.NO_EDIT
        return markov.FAILING if self.compiles else markov.BROKEN


@dataclass(frozen=True)
class LoopRun:
    task_id: str
    library: str
    difficulty: str
    model: str
    condition: str
    sample: int
    budget: int
    turns: tuple[LoopTurn, ...]
    convergence_class: str  # as recorded, else as recomputed
    first_solved_turn: int | None
    recomputed_class: str  # what bench.loop.convergence says about the turns

    @property
    def converged(self) -> bool:
        return self.convergence_class == Outcome.CONVERGED.value

    @property
    def infrastructure_error(self) -> bool:
        return any(turn.outcome == "infrastructure_error" for turn in self.turns)

    @property
    def states(self) -> tuple[str, ...]:
        return tuple(turn.state for turn in self.turns)


@dataclass(frozen=True)
class AttemptRun:
    task_id: str
    library: str
    difficulty: str
    model: str
    sample: int
    outcome: str
    resolved: bool | None = None  # the headline: solved and no pass_to_pass test broken; None: as solved

    def __post_init__(self) -> None:
        if self.resolved is None:
            object.__setattr__(self, "resolved", self.outcome == "solved")


@dataclass(frozen=True)
class RecordSet:
    loops: tuple[LoopRun, ...]
    attempts: tuple[AttemptRun, ...]
    other_kinds: tuple[tuple[str, int], ...]  # (kind, count) of skipped records, sorted
    duplicates: int

    @property
    def class_mismatches(self) -> tuple[LoopRun, ...]:
        return tuple(run for run in self.loops if run.convergence_class != run.recomputed_class)


def parse_records(records: Sequence[Mapping[str, Any]]) -> RecordSet:
    """Typed runs from raw records; raises CheckFailed naming the record (1-based) and field at fault."""
    loops: list[LoopRun] = []
    attempts: list[AttemptRun] = []
    other: Counter[str] = Counter()
    seen: set[tuple] = set()
    duplicates = 0
    for number, record in enumerate(records, start=1):
        if not isinstance(record, Mapping):
            raise CheckFailed(f"record {number}: expected a JSON object, got {type(record).__name__}")
        kind = record.get("kind")
        if kind not in ("loop", "attempt"):
            other[str(kind)] += 1
            continue
        run = _parse_loop(record, number) if kind == "loop" else _parse_attempt(record, number)
        key = unit_key(record)
        if key in seen:
            duplicates += 1
            continue
        seen.add(key)
        (loops if kind == "loop" else attempts).append(run)  # type: ignore[arg-type]
    return RecordSet(tuple(loops), tuple(attempts), tuple(sorted(other.items())), duplicates)


def unit_key(record: Mapping[str, Any]) -> tuple:
    """What makes a unit one: kind, model, task, condition (none for single attempts) and sample."""
    kind = record.get("kind")
    condition = "" if kind == "attempt" else record.get("condition")
    sample = record.get("sample")
    return (kind, record.get("model"), record.get("task_id"), condition, 0 if sample is None else sample)


def _parse_attempt(record: Mapping[str, Any], number: int) -> AttemptRun:
    return AttemptRun(
        task_id=_text(record, "task_id", number),
        library=_text(record, "library", number, default=UNKNOWN),
        difficulty=_text(record, "difficulty", number, default=UNKNOWN),
        model=_text(record, "model", number),
        sample=_integer(record, "sample", number, default=0),
        outcome=_choice(record, "outcome", number, OUTCOMES),
        resolved=_resolved(record),
    )


def _resolved(record: Mapping[str, Any]) -> bool:
    """As recorded; records made before `resolved` existed: solved with no pass_to_pass test broken."""
    if "resolved" in record:
        return bool(record["resolved"])
    return record.get("outcome") == "solved" and not record.get("pass_to_pass_broken")


def _parse_loop(record: Mapping[str, Any], number: int) -> LoopRun:
    raw_turns = record.get("turns")
    unprepared = raw_turns is None and record.get("outcome") == "infrastructure_error"
    if unprepared:  # the unit failed before its first turn (say, its task could not be prepared)
        raw_turns = [{"turn": 1, "outcome": "infrastructure_error"}]
    if not isinstance(raw_turns, list):
        raise CheckFailed(f"record {number}: loop record needs a list 'turns'")
    turns = tuple(_parse_turn(raw, number) for raw in raw_turns)
    budget = _integer(record, "budget", number, default=1 if unprepared else None)
    try:
        trajectory = Trajectory(
            str(record.get("task_id")),
            str(record.get("condition")),
            tuple(Turn(t.turn, t.candidate_digest, t.signature, t.outcome == "solved", t.compiles) for t in turns),
            budget,
        )
    except ValueError as error:
        raise CheckFailed(f"record {number}: {error}") from None
    recomputed = classify(trajectory)
    recorded_class = record.get("class")
    if recorded_class is not None and recorded_class not in CLASSES:
        raise CheckFailed(f"record {number}: 'class' must be one of {CLASSES}, got {recorded_class!r}")
    first_solved = record.get("first_solved_turn", recomputed.first_solved_turn)
    return LoopRun(
        task_id=_text(record, "task_id", number),
        library=_text(record, "library", number, default=UNKNOWN),
        difficulty=_text(record, "difficulty", number, default=UNKNOWN),
        model=_text(record, "model", number),
        condition=_text(record, "condition", number),
        sample=_integer(record, "sample", number, default=0),
        budget=budget,
        turns=turns,
        convergence_class=recorded_class or recomputed.outcome.value,
        first_solved_turn=first_solved if isinstance(first_solved, int) else None,
        recomputed_class=recomputed.outcome.value,
    )


def _parse_turn(raw: Any, number: int) -> LoopTurn:
    if not isinstance(raw, Mapping):
        raise CheckFailed(f"record {number}: each turn must be an object")
    outcome = _choice(raw, "outcome", number, OUTCOMES)
    failing = raw.get("failing", [])
    if not isinstance(failing, list) or not all(isinstance(item, str) for item in failing):
        raise CheckFailed(f"record {number}: turn 'failing' must be a list of test ids")
    emitted = outcome not in NO_CANDIDATE_OUTCOMES
    return LoopTurn(
        turn=_integer(raw, "turn", number),
        outcome=outcome,
        signature=_text(raw, "signature", number, default=""),
        candidate_digest=_text(raw, "candidate_digest", number, default="") if emitted else NO_CANDIDATE,
        compiles=bool(raw.get("compiles", True)),
        failing=tuple(failing),
        worker_tokens=_integer(raw, "worker_tokens", number, default=0),
        controller_tokens=_integer(raw, "controller_tokens", number, default=0),
        resolved=_resolved(raw),
    )


def _text(record: Mapping[str, Any], field: str, number: int, default: str | None = None) -> str:
    value = record.get(field)
    value = default if value is None else value
    if not isinstance(value, str) or (default is None and not value):
        raise CheckFailed(f"record {number}: field {field!r} must be a non-empty string, got {value!r}")
    return value


def _integer(record: Mapping[str, Any], field: str, number: int, default: int | None = None) -> int:
    value = record.get(field)
    if value is None and default is not None:
        return default
    if not isinstance(value, int) or isinstance(value, bool):
        raise CheckFailed(f"record {number}: field {field!r} must be an integer, got {value!r}")
    return value


def _choice(record: Mapping[str, Any], field: str, number: int, allowed: tuple[str, ...]) -> str:
    value = record.get(field)
    if value not in allowed:
        raise CheckFailed(f"record {number}: field {field!r} must be one of {allowed}, got {value!r}")
    return value
