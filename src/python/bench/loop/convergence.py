"""Classify a repair-loop trajectory: CONVERGED, STALLED, OSCILLATING or EXHAUSTED.

The harness, never the model, decides. The classifier reads only two fingerprints per turn (see
``bench.loop.signature``): the candidate digest (what code was emitted) and the failure signature (what failing
state the tests observed). Definitions, checked in this order (the first that holds wins):

1. **CONVERGED** — some turn solved the task. ``first_solved_turn`` is the index of the first such turn; what
   happened after it does not matter (the loop normally stops there).
2. **STALLED** — a byte-identical failing candidate was emitted twice: two emitted turns ``i < j`` anywhere in
   the trajectory (not only consecutive ones) share a candidate digest. A non-passing fixed point.
3. **OSCILLATING** — a failing signature recurred after the code changed: two emitted turns ``i < j`` share a
   signature but not a candidate digest. This includes a *plateau* (different code, same failing state on
   the next turn) as well as a *cycle* through other states; the ``reason`` says which.
4. **EXHAUSTED** — none of the above: every emitted candidate and every failing signature was new.

STALLED precedes OSCILLATING because identical code almost always reproduces its signature too; checking
OSCILLATING first would hide every fixed point. Because STALLED is checked first, an OSCILLATING trajectory has
pairwise distinct digests, so "the code changed" holds for every pair of its emitted turns.

A turn that **emitted no candidate** (invalid edit, model timeout) carries ``candidate_digest == ""``
(:data:`NO_CANDIDATE`): it uses budget but takes part in neither repeat test — the model did not emit the code
that is still in the workspace, so it cannot have emitted it "twice".

Classification always looks at the whole prefix it is given. The loop driver asks :func:`should_stop` after
each turn; the default policy stops only on a solved turn and otherwise runs to the budget, so a trajectory
that stalls early still shows whether the model would have escaped. Properties that follow from the
definitions (tested): CONVERGED is absorbing under extension; under extension by failing turns the class only
moves up the order EXHAUSTED → OSCILLATING → STALLED; relabelling digests or signatures injectively changes
nothing.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Sequence

NO_CANDIDATE = ""


class Outcome(str, enum.Enum):
    CONVERGED = "CONVERGED"
    STALLED = "STALLED"
    OSCILLATING = "OSCILLATING"
    EXHAUSTED = "EXHAUSTED"


class StopPolicy(str, enum.Enum):
    ON_SOLVED = "on-solved"  # default: stop when solved, otherwise run to budget
    ON_REPEAT = "on-repeat"  # also stop at the first STALL or OSCILLATION (saves budget, loses escapes)


@dataclass(frozen=True)
class Turn:
    index: int  # 1-based turn number within the trajectory
    candidate_digest: str  # NO_CANDIDATE ("") when the turn emitted no applicable candidate
    signature: str  # failure signature of the state after this turn (ignored when solved)
    solved: bool
    compiles: bool

    @property
    def emitted(self) -> bool:
        return self.candidate_digest != NO_CANDIDATE


@dataclass(frozen=True)
class Trajectory:
    task_id: str
    condition: str
    turns: tuple[Turn, ...]
    budget: int

    def __post_init__(self) -> None:
        if self.budget < 1:
            raise ValueError(f"budget must be at least 1, got {self.budget}")
        if len(self.turns) > self.budget:
            raise ValueError(f"{len(self.turns)} turns exceed the budget of {self.budget}")
        for position, turn in enumerate(self.turns, start=1):
            if turn.index != position:
                raise ValueError(f"turn at position {position} has index {turn.index}; indices are 1..n")


@dataclass(frozen=True)
class Classification:
    outcome: Outcome
    first_solved_turn: int | None
    reason: str


def classify(trajectory: Trajectory) -> Classification:
    """The trajectory's class per the module docstring; total over every valid trajectory."""
    return classify_turns(trajectory.turns, budget=trajectory.budget)


def classify_turns(turns: Sequence[Turn], budget: int | None = None) -> Classification:
    """Like :func:`classify` for a bare prefix of turns (what the loop driver holds mid-run)."""
    for turn in turns:
        if turn.solved:
            return Classification(Outcome.CONVERGED, turn.index, f"turn {turn.index} solved the task")
    emitted = [turn for turn in turns if turn.emitted]
    stall = _first_repeat(emitted, key=lambda turn: turn.candidate_digest)
    if stall is not None:
        first, second = stall
        return Classification(
            Outcome.STALLED,
            None,
            f"turn {second.index} re-emitted the failing candidate of turn {first.index} "
            f"({first.candidate_digest[:12]})",
        )
    recurrence = _first_repeat(emitted, key=lambda turn: turn.signature)
    if recurrence is not None:
        return Classification(Outcome.OSCILLATING, None, _oscillation_reason(emitted, *recurrence))
    spent = len(turns)
    of_budget = f" of {budget}" if budget is not None else ""
    return Classification(
        Outcome.EXHAUSTED, None, f"{spent}{of_budget} turns failed, no candidate or failing state repeated"
    )


def should_stop(
    turns: Sequence[Turn], *, budget: int | None = None, policy: StopPolicy = StopPolicy.ON_SOLVED
) -> bool:
    """Whether the loop driver should stop after ``turns``: solved, budget spent, or (ON_REPEAT) a repeat."""
    if not turns:
        return False
    if any(turn.solved for turn in turns):
        return True
    if budget is not None and len(turns) >= budget:
        return True
    if policy is StopPolicy.ON_REPEAT:
        return classify_turns(turns).outcome in (Outcome.STALLED, Outcome.OSCILLATING)
    return False


def _first_repeat(turns: Sequence[Turn], *, key) -> tuple[Turn, Turn] | None:
    """The earliest-completed pair (i, j), i < j, with equal key: smallest j, then the turn it repeats."""
    seen: dict[str, Turn] = {}
    for turn in turns:
        value = key(turn)
        if value in seen:
            return seen[value], turn
        seen[value] = turn
    return None


def _oscillation_reason(emitted: Sequence[Turn], first: Turn, second: Turn) -> str:
    between = [turn for turn in emitted if first.index < turn.index < second.index]
    shape = "cycle through other states" if any(t.signature != first.signature for t in between) else "plateau"
    return (
        f"failing state {first.signature[:12]} of turn {first.index} recurred at turn {second.index} "
        f"with different code ({shape})"
    )
