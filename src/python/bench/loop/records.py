"""The score record: one scored unit (an attempt, a repair loop or a resampling run) as ``bench score`` writes it,
one line of ``results.jsonl``, and as the report, ``bench verify`` and ``bench view`` read it back. The fields
are documented in ``bench/report/README.md``.

Defined here, below both the writer (``bench.score``) and its readers (``bench.report``,
``bench.score.recompute``), so that neither keeps its own idea of a record; its parts (outcomes, turns, usage,
prompt context) are in ``bench.loop.record_parts`` and importable from here. :meth:`UnitRecord.to_json` is the
object the runner writes (in canonical JSON); :meth:`UnitRecord.from_json` reads one back, fills the documented
defaults and raises :class:`~bench.errors.CheckFailed` naming the record and field of malformed input.

For every record the writer makes, ``from_json(r).to_json() == r``:

* a field the writer leaves out on some paths is ``None`` here and left out again: ``resolved`` of records
  made before it existed, ``reason`` of a finished loop, ``prompt_sha256`` of a prediction, ``usage`` of a unit
  that never called a model, and the trajectory fields of a loop that failed before its first turn;
* a loop's ``budget``, ``turns``, ``class``, ``class_reason`` and ``first_solved_turn`` are written together
  (``first_solved_turn`` may be null);
* keys this module does not know are kept as they were (``extra``), so a newer writer's fields survive.

A field the writer always writes but a hand-made record may lack takes its default (``library`` and
``difficulty`` ``unknown``, ``sample`` 0, a loop's class and first solved turn as classified from its turns)
and is written from then on.

To add a field: give it to :class:`UnitRecord` (or :class:`TurnRecord`) with the default that means "not
written", write it in ``to_json`` under the same omission rule as the writer, read it in ``from_json``, and
list it in the report's README.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from bench.errors import CheckFailed
from bench.loop import convergence
from bench.loop._fields import Fields, Pairs, listed, put, with_extra
from bench.loop.record_parts import NO_CANDIDATE_OUTCOMES, OUTCOMES, Outcome, PromptContext, TurnRecord, Usage

__all__ = ["CLASSES", "NO_CANDIDATE_OUTCOMES", "OUTCOMES", "UNIT_KINDS", "UNKNOWN", "Outcome", "PromptContext",
           "TurnRecord", "UnitRecord", "Usage", "final_outcome"]

UNKNOWN = "unknown"
UNIT_KINDS = ("attempt", "loop", "resample")
TRAJECTORY_KINDS = ("loop", "resample")
CLASSES = tuple(outcome.value for outcome in convergence.Outcome)


@dataclass(frozen=True, kw_only=True)
class UnitRecord:
    """One scored unit as its line of ``results.jsonl`` holds it (``bench.score.units.Unit`` is what was run)."""

    kind: str  # one of UNIT_KINDS
    task_id: str
    model: str
    condition: str  # "single" for attempts; "full" | "count-only" for loops; "resample"
    sample: int = 0
    task_kind: str = "synthetic"
    library: str = UNKNOWN
    difficulty: str = UNKNOWN
    runner_version: str = ""
    integrity: Pairs = ()  # (name, value): the pins and hashes the unit was scored under
    outcome: Outcome
    resolved: bool | None = None  # solved and no pass_to_pass test broken; None: not written (older records)
    # The verified tier (bench.probes.verify), of the resolved candidate only: whether every probe was answered
    # as the reference answers it, the check's status and its first divergence. None: not resolved (or older).
    verified: bool | None = None
    verification: str | None = None  # "verified" | "diverged" | "no probes"
    divergence: str | None = None
    # The loop went on past a resolved turn that diverged, feeding the divergence back (bench score
    # --feed-divergences); written only when set.
    feed_divergences: bool = False
    reason: str | None = None
    prompt_sha256: str | None = None  # None: no prompt was built (a prediction, or a unit that failed first)
    edit_format: str | None = None  # written only when not the default
    context: PromptContext | None = None  # written only under a context policy or budget
    # A loop's or resampling run's trajectory: all None for attempts and for a loop that never had a turn.
    budget: int | None = None
    turns: tuple[TurnRecord, ...] | None = None
    convergence_class: convergence.Outcome | None = None  # written as "class"
    class_reason: str | None = None
    first_solved_turn: int | None = None  # written (maybe null) whenever turns are
    # An attempt's reply and verdict; a call that gave no answer has only response_sha256 "" and usage {}.
    response_sha256: str | None = None
    usage: Usage | None = None
    served_model: str | None = None
    edited_files: tuple[str, ...] | None = None
    candidate_digest: str | None = None
    still_failing: tuple[str, ...] | None = None
    pass_to_pass_broken: tuple[str, ...] | None = None
    results: tuple[tuple[str, ...], ...] | None = None  # (test id, outcome) of target and guard tests
    extra: Pairs = ()  # (key, canonical JSON) of fields this module does not know

    @property
    def key(self) -> tuple[str, str, str, int]:
        """What the runner resumes by: task, model, condition, sample."""
        return (self.task_id, self.model, self.condition, self.sample)

    @property
    def is_resolved(self) -> bool:
        """As recorded; records made before ``resolved`` existed: solved with no pass_to_pass test broken."""
        if self.resolved is not None:
            return self.resolved
        return self.outcome is Outcome.SOLVED and not self.pass_to_pass_broken

    @property
    def is_verified(self) -> bool:
        """Resolved and verified by the probe tier, as recorded (never for records made before the tier)."""
        return self.is_resolved and self.verified is True

    @property
    def errored(self) -> bool:
        """The unit, or a turn of its loop, hit an infrastructure error: not a model failure, not scored."""
        return Outcome.INFRASTRUCTURE_ERROR in (self.outcome, *(turn.outcome for turn in self.turns or ()))

    @property
    def solved(self) -> bool:
        """Targets passed (guards ignored): the attempt, or some turn of the loop."""
        return Outcome.SOLVED in (self.outcome, *(turn.outcome for turn in self.turns or ()))

    def to_json(self) -> dict:
        """The object the runner writes (``bench.store.canonical.canonical_json`` gives its bytes)."""
        out: dict[str, Any] = {
            "kind": self.kind, "task_id": self.task_id, "task_kind": self.task_kind, "library": self.library,
            "difficulty": self.difficulty, "model": self.model, "condition": self.condition, "sample": self.sample,
            "runner_version": self.runner_version, "integrity": dict(self.integrity),
        }
        put(out, "prompt_sha256", self.prompt_sha256)
        put(out, "edit_format", self.edit_format)
        put(out, "context", self.context and self.context.to_json())
        if self.turns is not None:
            out.update({"budget": self.budget, "turns": [turn.to_json() for turn in self.turns],
                        "class": self.convergence_class.value, "class_reason": self.class_reason,
                        "first_solved_turn": self.first_solved_turn})
        out["outcome"] = self.outcome.value
        for name in ("resolved", "verified", "verification", "divergence", "reason", "response_sha256"):
            put(out, name, getattr(self, name))
        if self.feed_divergences:
            out["feed_divergences"] = True
        put(out, "usage", self.usage and self.usage.to_json())
        put(out, "served_model", self.served_model)
        put(out, "edited_files", listed(self.edited_files))
        put(out, "candidate_digest", self.candidate_digest)
        for name in ("still_failing", "pass_to_pass_broken", "results"):
            put(out, name, listed(getattr(self, name)))
        return with_extra(out, self.extra)

    @classmethod
    def from_json(cls, data: Any, where: str = "record") -> "UnitRecord":
        """The record of ``data`` (a parsed line); CheckFailed names ``where`` and the field at fault."""
        read = Fields(data, where)
        kind = read.get("kind")
        if kind not in UNIT_KINDS:
            read.fail("kind", f"one of {UNIT_KINDS}", kind)
        trajectory = _trajectory(read, kind) if kind in TRAJECTORY_KINDS else {}
        turns, first = trajectory.get("turns"), trajectory.get("first_solved_turn")
        derived = final_outcome(kind, turns, first) if turns is not None else None
        context, usage = read.get("context"), read.get("usage")
        return cls(
            kind=kind, task_id=read.text("task_id"), model=read.text("model"),
            condition=read.text("condition", default=None if kind in TRAJECTORY_KINDS else "single"),
            sample=read.integer("sample", default=0), task_kind=read.text("task_kind", default="synthetic"),
            library=read.text("library", default=UNKNOWN), difficulty=read.text("difficulty", default=UNKNOWN),
            runner_version=read.text("runner_version", default=""), integrity=read.string_pairs("integrity"),
            outcome=read.choice("outcome", Outcome, default=derived), resolved=read.optional_flag("resolved"),
            verified=read.optional_flag("verified"), verification=read.optional_text("verification"),
            divergence=read.optional_text("divergence"), feed_divergences=read.optional_flag("feed_divergences") is True,
            reason=read.optional_text("reason"), prompt_sha256=read.optional_text("prompt_sha256"),
            edit_format=read.optional_text("edit_format"),
            context=None if context is None else PromptContext.from_json(context, where),
            **trajectory,
            response_sha256=read.optional_text("response_sha256"),
            usage=None if usage is None else Usage.from_json(usage, where),
            served_model=read.optional_text("served_model"), edited_files=read.texts("edited_files"),
            candidate_digest=read.optional_text("candidate_digest"), still_failing=read.texts("still_failing"),
            pass_to_pass_broken=read.texts("pass_to_pass_broken"), results=read.rows("results"),
            extra=read.extra(_UNIT_KEYS + (_TRAJECTORY_KEYS if trajectory else ())),
        )


_UNIT_KEYS = ("kind", "task_id", "task_kind", "library", "difficulty", "model", "condition", "sample",
              "runner_version", "integrity", "prompt_sha256", "edit_format", "context", "outcome", "resolved",
              "verified", "verification", "divergence", "feed_divergences", "reason", "response_sha256", "usage", "served_model", "edited_files", "candidate_digest",
              "still_failing", "pass_to_pass_broken", "results")
_TRAJECTORY_KEYS = ("budget", "turns", "class", "class_reason", "first_solved_turn")


def final_outcome(kind: str, turns: Sequence[TurnRecord], first_solved_turn: int | None) -> Outcome:
    """What a trajectory's record says it ended in: solved when a turn solved it; else a loop's infrastructure
    error if any turn hit one (the run is not scored), else the last turn's or draw's outcome."""
    outcomes = [turn.outcome for turn in turns]
    if first_solved_turn:
        return Outcome.SOLVED
    if kind == "loop" and Outcome.INFRASTRUCTURE_ERROR in outcomes:
        return Outcome.INFRASTRUCTURE_ERROR
    return outcomes[-1] if outcomes else Outcome.MODEL_MISS


def _trajectory(read: Fields, kind: str) -> dict:
    """A loop's trajectory fields, the class and first solved turn classified when not recorded; none for a
    loop whose unit failed before its first turn (an infrastructure error with no turns)."""
    raw = read.get("turns")
    if raw is None and read.get("outcome") == Outcome.INFRASTRUCTURE_ERROR.value:
        return {}
    if not isinstance(raw, list):
        raise CheckFailed(f"{read.where}: {kind} record needs a list 'turns'")
    turns = tuple(TurnRecord.from_json(item, read.where) for item in raw)
    budget = read.integer("budget")
    try:
        trajectory = convergence.Trajectory(str(read.get("task_id")), str(read.get("condition")),
                                            tuple(turn.convergence_turn() for turn in turns), budget)
    except ValueError as error:
        raise CheckFailed(f"{read.where}: {error}") from None
    recorded = read.get("class")
    if recorded is not None and recorded not in CLASSES:
        raise CheckFailed(f"{read.where}: 'class' must be one of {CLASSES}, got {recorded!r}")
    classified = convergence.classify(trajectory)
    has_first = "first_solved_turn" in read.data
    return {
        "budget": budget, "turns": turns,
        "convergence_class": convergence.Outcome(recorded) if recorded else classified.outcome,
        "class_reason": read.text("class_reason", default="" if recorded else classified.reason),
        "first_solved_turn": read.optional_integer("first_solved_turn") if has_first else classified.first_solved_turn,
    }
