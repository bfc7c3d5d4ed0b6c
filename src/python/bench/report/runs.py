"""Read result records (one JSON object per JSONL line) into typed runs for the report.

Each unit record is parsed by ``bench.loop.records.UnitRecord.from_json``, which checks the fields
``bench/report/README.md`` lists and fills their defaults; a run here is what the report computes from it (the
class recomputed from the turns, the Markov states). Records of kinds other than ``loop`` and ``attempt`` are
counted and skipped, so the report can be built from a results file that also holds other records. A unit
recorded twice (same kind, model, task, condition, sample) keeps its first occurrence; the report says how many
were dropped. Every other part of the report is independent of record order.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from typing import Any, Mapping, Sequence

from bench.errors import CheckFailed
from bench.loop.convergence import Outcome, Trajectory, classify
from bench.loop.records import NO_CANDIDATE_OUTCOMES as _NO_CANDIDATE, Outcome as UnitOutcome, TurnRecord, UnitRecord
from bench.report import markov

NO_CANDIDATE_OUTCOMES = tuple(outcome.value for outcome in _NO_CANDIDATE)


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
    verification: str | None = None  # the verified tier of the resolved candidate (bench.probes.verify)

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
    verification: str | None = None  # the verified tier of a resolved attempt (bench.probes.verify)
    prompted: bool = True  # a prompt was built or a model called; a prediction (a given patch) has neither

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
    for number, raw in enumerate(records, start=1):
        if not isinstance(raw, Mapping):
            raise CheckFailed(f"record {number}: expected a JSON object, got {type(raw).__name__}")
        kind = raw.get("kind")
        if kind not in ("loop", "attempt"):
            other[str(kind)] += 1
            continue
        record = UnitRecord.from_json(raw, f"record {number}")
        run = _loop_run(record) if kind == "loop" else _attempt_run(record)
        key = unit_key(record)
        if key in seen:
            duplicates += 1
            continue
        seen.add(key)
        (loops if kind == "loop" else attempts).append(run)  # type: ignore[arg-type]
    return RecordSet(tuple(loops), tuple(attempts), tuple(sorted(other.items())), duplicates)


def unit_key(record: UnitRecord) -> tuple:
    """What makes a unit one: kind, model, task, condition (none for single attempts) and sample."""
    condition = "" if record.kind == "attempt" else record.condition
    return (record.kind, record.model, record.task_id, condition, record.sample)


def _attempt_run(record: UnitRecord) -> AttemptRun:
    return AttemptRun(task_id=record.task_id, library=record.library, difficulty=record.difficulty,
                      model=record.model, sample=record.sample, outcome=record.outcome.value,
                      resolved=record.is_resolved, verification=record.verification,
                      prompted=record.prompt_sha256 is not None or record.usage is not None)


def _loop_run(record: UnitRecord) -> LoopRun:
    """The run of a loop record: its class as recorded (from_json classifies a record without one) and as
    recomputed here, which the header compares."""
    if record.turns is None:  # the unit failed before its first turn: one infrastructure-error turn of budget 1
        record = replace(record, budget=1, turns=(TurnRecord(turn=1, outcome=UnitOutcome.INFRASTRUCTURE_ERROR),))
    turns = tuple(turn.convergence_turn() for turn in record.turns)
    recomputed = classify(Trajectory(record.task_id, record.condition, turns, record.budget))  # checked by from_json
    return LoopRun(
        task_id=record.task_id,
        library=record.library,
        difficulty=record.difficulty,
        model=record.model,
        condition=record.condition,
        sample=record.sample,
        budget=record.budget,
        turns=tuple(_loop_turn(turn) for turn in record.turns),
        convergence_class=(record.convergence_class or recomputed.outcome).value,
        first_solved_turn=record.first_solved_turn,
        recomputed_class=recomputed.outcome.value,
        verification=record.verification,
    )


def _loop_turn(turn: TurnRecord) -> LoopTurn:
    return LoopTurn(
        turn=turn.turn,
        outcome=turn.outcome.value,
        signature=turn.signature,
        candidate_digest=turn.convergence_turn().candidate_digest,
        compiles=turn.compiles,
        failing=turn.failing,
        worker_tokens=turn.worker_tokens,
        controller_tokens=turn.controller_tokens,
        resolved=turn.is_resolved,
    )
