"""Synthetic result records for exercising the report (tests, screenshots, demos) — not benchmark data.

A small seeded simulation: each task has a difficulty; each turn of a loop either solves it (more likely with
full feedback than with a failure count, and more likely for easy tasks), emits an invalid edit, or emits one of
a few failing candidates (a repeat of an earlier one gives a STALL, a repeat of a failing state an
OSCILLATION). Resampling draws turns independently with the count-only solve rate. Records carry the same
fields the runner writes (see README.md), classified by the real classifier.
"""

from __future__ import annotations

import random
from typing import Any

from bench.loop.convergence import Trajectory, Turn, classify
from bench.loop.signature import candidate_digest, failure_signature

DIFFICULTY_FACTOR = {"easy": 1.0, "medium": 0.55, "hard": 0.25}
SOLVE_RATE = {"full": 0.45, "count-only": 0.25, "resample": 0.2}
LIBRARIES = ("attrs", "click", "toolz")


def synthetic_records(seed: int = 0, tasks: int = 24, budget: int = 5, samples: int = 3) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    records: list[dict[str, Any]] = []
    for index in range(tasks):
        task_id = f"{LIBRARIES[index % len(LIBRARIES)]}-{index:03d}"
        library = LIBRARIES[index % len(LIBRARIES)]
        difficulty = tuple(DIFFICULTY_FACTOR)[index % 3]
        for condition in SOLVE_RATE:
            records.append(_loop_record(rng, task_id, library, difficulty, condition, budget))
        for sample in range(samples):
            solved = rng.random() < SOLVE_RATE["count-only"] * DIFFICULTY_FACTOR[difficulty]
            outcome = "solved" if solved else rng.choice(("model_miss", "model_miss", "invalid_edit", "model_timeout"))
            records.append(
                {"kind": "attempt", "task_id": task_id, "library": library, "difficulty": difficulty,
                 "model": "scripted/synthetic", "sample": sample, "outcome": outcome,
                 "prompt_sha256": f"{index:064x}"}
            )
    records.append({"kind": "certificate", "task_id": "attrs-000"})  # another kind the report must skip
    return records


def _loop_record(
    rng: random.Random, task_id: str, library: str, difficulty: str, condition: str, budget: int
) -> dict[str, Any]:
    turns: list[dict[str, Any]] = []
    for number in range(1, budget + 1):
        # Turn 1 has had no feedback yet, so every condition starts from the same solve rate.
        solve = SOLVE_RATE[condition if number > 1 else "resample"] * DIFFICULTY_FACTOR[difficulty]
        draw = rng.random()
        if draw < solve:
            turns.append(_turn(number, "solved", f"fixed-{number}", True, []))
            break
        if draw < solve + 0.07:
            turns.append(_turn(number, "invalid_edit", "", True, ["tests/test_x.py::test_a"]))
            continue
        # Failing states: fewer distinct ones without feedback, so repeats (stalls, cycles) are likelier there.
        variant = rng.randrange(8 if condition == "full" else 5)
        compiles = variant % 4 != 0
        failing = ["tests/test_x.py::test_a"] + [f"tests/test_x.py::test_{variant}"]
        content = f"{task_id}-{variant}-{rng.randrange(4)}"
        turns.append(_turn(number, "model_miss", content, compiles, failing))
    trajectory = Trajectory(
        task_id,
        condition,
        tuple(
            Turn(t["turn"], t["candidate_digest"], t["signature"], t["outcome"] == "solved", t["compiles"])
            for t in turns
        ),
        budget,
    )
    result = classify(trajectory)
    return {
        "kind": "loop", "task_id": task_id, "library": library, "difficulty": difficulty,
        "model": "scripted/synthetic", "condition": condition, "turns": turns,
        "class": result.outcome.value, "first_solved_turn": result.first_solved_turn, "budget": budget,
    }


def _turn(number: int, outcome: str, content: str, compiles: bool, failing: list[str]) -> dict[str, Any]:
    emitted = outcome not in ("invalid_edit", "model_timeout")
    error = "assert 3 == 4" if compiles else "SyntaxError: invalid syntax"
    if outcome == "invalid_edit":
        failing = []
    return {
        "turn": number,
        "outcome": outcome,
        "signature": "" if outcome == "solved" else failure_signature(compiles, failing, error),
        "candidate_digest": candidate_digest([("src/mod.py", content)]) if emitted else "",
        "compiles": compiles,
        "failing": [] if outcome == "solved" else failing,
        "worker_tokens": 900 + 37 * number,
        "controller_tokens": 120 if number > 1 else 0,
    }
