"""Build ``tasks/synthetic/_scripted/<study>/<slug>.json`` from the synthetic suite, and verify every file.

Run ``python -m bench.study.generate`` from the checkout (it takes no arguments). For each task:

1. its regime comes from :func:`bench.model.scripted.regime_of` (a hash of the task id, never chosen);
2. failing candidate programs are drawn, in a fixed order, from a pool: partial fixes (the initial program
   with a proper subset of the initial→reference diff hunks), then single-site mutants of the reference,
   then of the initial program (:mod:`bench.model.repair_candidates`), the mutants in an order seeded by the
   task id. Each is run against the hidden tests on the host. A candidate qualifies if it compiles and
   still fails a fail_to_pass test (otherwise the harness would score it solved);
3. the regime's trajectory is assembled (see ``tasks/synthetic/_scripted/README.md``) and rendered as
   SEARCH/REPLACE texts valid against the workspace as the previous turn left it;
4. the trajectory is replayed exactly as the cumulative loop plays it — the harness's edit applier, its
   signature and its classifier — and must realise the regime's class, or generation fails.

"Distinct failing states" are chosen as robustly as the pool allows: first by distinct sets of failing
fail_to_pass tests, then by distinct sets of failing target tests, then by distinct signatures.
"""

from __future__ import annotations

import itertools
import json
import sys
import time
from pathlib import Path
from typing import Callable, Iterator

from bench.errors import CheckFailed
from bench.study._scripted_host import Files, HostRunner, Observation, SyntheticTask, load_tasks, replay
from bench.study._scripted_pool import Candidate, candidate_pool, cosmetic_variant
from bench.model.repairer import render_no_op, render_search_replace
from bench.model.scripted import (
    CONDITIONS, DATA_SCHEMA, DEFAULT_STUDY, EXPECTED_CLASS, REGIMES, SCRIPTED_DIR, STUDY_TURN_BUDGET,
    converge_turn, regime_bucket, regime_of,
)

GENERATOR_VERSION = 2
MAX_EVALUATIONS = 60  # candidate programs run per task before giving up on the stricter distinctness keys
PREFETCH_CHUNK = 8
PREFETCH_TIMEOUT_SECONDS = 90.0  # past this a chunk holds a hanging mutant: its candidates run one by one


def main(checkout: Path | None = None, study: str = DEFAULT_STUDY) -> int:
    root = Path(checkout) if checkout is not None else Path.cwd()
    out_dir = root / SCRIPTED_DIR / study
    out_dir.mkdir(parents=True, exist_ok=True)
    runner = HostRunner()
    tasks = load_tasks(root)
    for number, task in enumerate(tasks, start=1):
        started = time.monotonic()
        target = out_dir / f"{task.slug}.json"
        if _is_current(target, task):
            print(f"[{number}/{len(tasks)}] {task.task_id}: current", file=sys.stderr)
            continue
        data = build(task, runner, study)
        _write_json(target, data)
        print(f"[{number}/{len(tasks)}] {task.task_id}: {data['regime']} ({time.monotonic() - started:.1f} s)",
              file=sys.stderr)
    wanted = {f"{task.slug}.json" for task in tasks}
    for stale in sorted(out_dir.glob("*.json")):
        if stale.name not in wanted:
            stale.unlink()
    summaries = [json.loads((out_dir / name).read_text(encoding="utf-8")) for name in sorted(wanted)]
    _write_text(root / SCRIPTED_DIR / "README.md", readme(summaries))
    print(f"{len(tasks)} trajectories in {out_dir} ({runner.runs} host test runs)", file=sys.stderr)
    return 0


def _is_current(path: Path, task: SyntheticTask) -> bool:
    """A data file built by this generator version from the task's current files needs no rebuild."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return data.get("generator_version") == GENERATOR_VERSION and data.get("inputs_sha256") == task.inputs_sha256


def build(task: SyntheticTask, runner: HostRunner, study: str = DEFAULT_STUDY) -> dict:
    """The data file of one task: both conditions' responses, verified by replay."""
    regime = regime_of(task.task_id)
    if runner.observe(task, task.initial).solved or not runner.observe(task, task.reference).solved:
        raise CheckFailed(f"{task.task_id}: the initial program must fail and the reference must pass")
    distinct_by, plans = _plan(task, regime, runner)
    conditions = {}
    for condition in CONDITIONS:
        labels, states = zip(*plans[condition])
        responses = _render(task, states)
        played = replay(task, responses, runner, STUDY_TURN_BUDGET)
        expected = EXPECTED_CLASS[regime]
        if played.classification.outcome.value != expected:
            raise CheckFailed(
                f"{task.task_id} [{condition}]: replay gives {played.classification.outcome.value}, "
                f"not {expected}: {played.classification.reason}"
            )
        conditions[condition] = {
            "expected_class": expected,
            "first_solved_turn": played.classification.first_solved_turn,
            "reason": played.classification.reason,
            "candidates": list(labels),
            "responses": responses,
            "expected_failing": [list(failing) for failing in played.failing],
        }
    return {
        "schema": DATA_SCHEMA,
        "generator_version": GENERATOR_VERSION,
        "study": study,
        "task_id": task.task_id,
        "difficulty": task.difficulty,
        "regime": regime,
        "bucket": regime_bucket(task.task_id),
        "converge_turn": converge_turn(task.task_id) if regime == "converge" else None,
        "distinct_by": distinct_by,
        "turn_budget": STUDY_TURN_BUDGET,
        "inputs_sha256": task.inputs_sha256,
        "conditions": conditions,
    }


# --- planning ------------------------------------------------------------------------------------------


def _plan(task: SyntheticTask, regime: str, runner: HostRunner) -> tuple[str, dict[str, list[Candidate]]]:
    """Per condition, the candidate of each stored turn (count-only differs only for ``converge``), and the
    key that tells the failing candidates apart."""
    reference = ("reference", task.reference)
    if regime == "converge":
        turn = converge_turn(task.task_id)
        # turn - 1 partial fixes for full, one more for count-only (see the README)
        distinct_by, partials = _distinct_failing(task, runner, turn)
        return distinct_by, {"full": partials[: turn - 1] + [reference], "count-only": partials + [reference]}
    if regime == "oscillate":
        distinct_by, (first, second) = _distinct_failing(task, runner, 2)
        plan = [first, second, cosmetic_variant(first, 1), cosmetic_variant(second, 1), cosmetic_variant(first, 2)]
    elif regime == "stall":
        distinct_by, (only,) = _distinct_failing(task, runner, 1)
        plan = [only, only]  # the second turn re-emits the same program: a no-op edit
    else:
        distinct_by, plan = _distinct_failing(task, runner, STUDY_TURN_BUDGET)
    return distinct_by, {condition: list(plan) for condition in CONDITIONS}


DISTINCTNESS = ("failing fail_to_pass tests", "failing target tests", "failure signature")


def _distinct_failing(task: SyntheticTask, runner: HostRunner, count: int) -> tuple[str, list[Candidate]]:
    """``count`` qualifying candidates whose failing states differ pairwise, and the key that tells them apart.

    Keys, strictest first: the set of failing fail_to_pass tests, the set of failing target tests, the
    signature. The strictest key that can separate ``count`` states at all is tried while candidates are
    run (at most MAX_EVALUATIONS); the looser keys only over what was run.
    """
    keys: tuple[Callable[[Observation], object], ...] = (
        lambda seen: tuple(test for test in seen.failing if test in task.fail_to_pass),
        lambda seen: seen.failing,
        lambda seen: seen.signature,
    )
    sizes = (len(task.fail_to_pass), len(task.fail_to_pass) + len(task.pass_to_pass))
    strictest = next((tier for tier, size in enumerate(sizes) if 2**size - 1 >= count), len(sizes))
    evaluated: list[tuple[Candidate, Observation]] = []
    for candidate in _prefetched(task, runner, itertools.islice(candidate_pool(task), MAX_EVALUATIONS)):
        observed = runner.observe(task, candidate[1])
        if observed.compiles and not observed.solved and not observed.timed_out:
            evaluated.append((candidate, observed))
            chosen = _pick(evaluated, keys[strictest], count)
            if chosen is not None:
                return DISTINCTNESS[strictest], chosen
    for tier in range(strictest + 1, len(keys)):
        chosen = _pick(evaluated, keys[tier], count)
        if chosen is not None:
            return DISTINCTNESS[tier], chosen
    raise CheckFailed(f"{task.task_id}: fewer than {count} distinct failing candidates in the pool")


def _prefetched(task: SyntheticTask, runner: HostRunner, candidates) -> Iterator[Candidate]:
    """The candidates in order, their tests run a chunk at a time in one interpreter (only speed changes)."""
    while chunk := list(itertools.islice(candidates, PREFETCH_CHUNK)):
        runner.prefetch([(task, files) for _, files in chunk], timeout=PREFETCH_TIMEOUT_SECONDS)
        yield from chunk


def _pick(evaluated: list[tuple[Candidate, Observation]], key, count: int) -> list[Candidate] | None:
    chosen: dict[object, Candidate] = {}
    for candidate, observed in evaluated:
        chosen.setdefault(key(observed), candidate)
        if len(chosen) == count:
            return list(chosen.values())
    return None


# --- the README ----------------------------------------------------------------------------------------

_README_HEAD = """\
# Scripted trajectories of the convergence study

Written by the generator, run from the checkout's root after adding or changing a synthetic task:

    PYTHONPATH=src/python python3 -m bench.study.generate

It needs pytest on that `python3` (it runs each task's tests on the host, outside the sandbox), makes only
the files that are missing or out of date (a new task takes seconds to a minute) and rewrites this README.
`bench admit` of a synthetic task prints this command, and `bench score --model scripted` refuses a task
without its file (exit 2) with it. `bench/model/scripted_test.py` checks that every file is current and
replays to its expected class.
The model `scripted/<study>` (`bench/model/scripted.py`) replays `<study>/<slug>.json`: per feedback
condition, the response text of each turn, SEARCH/REPLACE edits valid against the workspace as the previous
turn left it (the loop is cumulative). Past the last stored turn the model repeats its last text.

## Regime of a task: a hash, not a choice

    bucket = int(sha256(task_id).hexdigest(), 16) % 100
     0..39 converge (40 %)   40..59 oscillate (20 %)   60..79 stall (20 %)   80..99 exhaust (20 %)
    t = 1 + int(sha256("converge-turn:" + task_id).hexdigest(), 16) % 3        (converge only)

| regime | turns (budget {budget}) | class the harness must observe |
|---|---|---|
| converge | t - 1 partial fixes, then the reference at turn t | CONVERGED at turn t |
| oscillate | A, B, A', B', A'' where A' and A'' are A plus a trailing comment (same for B) | OSCILLATING |
| stall | A, then a no-op edit (SEARCH = REPLACE) that leaves A in place; repeated | STALLED |
| exhaust | five failing candidates, pairwise distinct failing states | EXHAUSTED |

Candidates come from a fixed, lazily run pool: partial fixes (the initial program with a proper subset of the
initial-to-reference line hunks, largest subsets first), then single-site mutants of the reference and of
the initial program, then a partial fix or the initial program plus one more mutation; mutants in an order
seeded by the task id. Each is run against the hidden tests on the host; it qualifies if it compiles, does
not hang and still fails a fail_to_pass test. "Distinct failing states" are told apart by the strictest key
that can: the set of failing fail_to_pass tests, else the set of failing target tests, else the failure
signature (`distinct_by` in each file). Every trajectory is replayed with the harness's edit applier,
signature and classifier before it is written; `expected_class`, `first_solved_turn` and `expected_failing`
(the failing target tests after each turn) record what that replay observed.

## The count-only condition (a declared modelling choice)

Under count-only feedback the scripted model behaves as under full feedback, except that a converging task
converges **one turn later**: it emits one more partial fix before the reference (at turn t + 1 <= 4). So
the conditions differ only in time to convergence; the classes are the same. This is a modelling choice for
a deterministic CI study, not a measurement; the measured feedback effect comes from real models and from
the search-based repairer (`repairer/ast`).

"""


def readme(summaries: list[dict]) -> str:
    mix = {regime: 0 for regime in REGIMES}
    for summary in summaries:
        mix[summary["regime"]] += 1
    line = ", ".join(f"{regime} {count}" for regime, count in mix.items())
    rows = [
        f"| {s['task_id']} | {s['difficulty']} | {s['bucket']} | {s['regime']} | "
        f"{s['converge_turn'] or ''} | {s['distinct_by']} | {s['conditions']['full']['expected_class']} | "
        f"{s['conditions']['full']['first_solved_turn'] or ''} | "
        f"{s['conditions']['count-only']['first_solved_turn'] or ''} |"
        for s in summaries
    ]
    table = [
        "| task | difficulty | bucket | regime | t | distinct by | expected class | solved (full) | "
        "solved (count-only) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    return (
        _README_HEAD.format(budget=STUDY_TURN_BUDGET)
        + f"## Tasks\n\nRealised mix over {len(summaries)} tasks: {line}.\n\n"
        + "\n".join(table + rows)
        + "\n"
    )


# --- rendering -----------------------------------------------------------------------------------------


def _render(task: SyntheticTask, states: tuple[Files, ...]) -> list[str]:
    """One response per state: the SEARCH/REPLACE blocks from the previous state (the initial one first)."""
    responses, previous = [], task.initial
    for state in states:
        old, new = dict(previous), dict(state)
        blocks = [render_search_replace(path, old[path], new[path]) for path in sorted(new)]
        text = "\n".join(block for block in blocks if block)
        responses.append(text or _no_op(task, state))
        previous = state
    return responses


def _no_op(task: SyntheticTask, state: Files) -> str:
    """A block whose SEARCH equals its REPLACE, at the first line where the state differs from the initial."""
    initial = dict(task.initial)
    for path, text in state:
        if text != initial[path]:
            pairs = itertools.zip_longest(text.splitlines(keepends=True), initial[path].splitlines(keepends=True))
            first = next(index for index, (now, before) in enumerate(pairs) if now != before)
            return render_no_op(path, text, first)
    raise CheckFailed(f"{task.task_id}: a stalled candidate must differ from the initial program")


def _write_json(path: Path, data: dict) -> None:
    _write_text(path, json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n")


def _write_text(path: Path, text: str) -> None:
    from bench.store.atomic import write_atomic

    write_atomic(path, text.encode("utf-8"))


if __name__ == "__main__":
    sys.exit(main())
