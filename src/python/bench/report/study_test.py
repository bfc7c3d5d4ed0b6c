from __future__ import annotations

import pytest

from bench.report import study
from bench.report.runs import AttemptRun, LoopRun, LoopTurn


def run(task_id: str, condition: str, first_solved: int | None, budget: int = 5, infra: bool = False) -> LoopRun:
    turns = []
    length = first_solved if first_solved is not None else budget
    for number in range(1, length + 1):
        outcome = "solved" if number == first_solved else ("infrastructure_error" if infra else "model_miss")
        turns.append(LoopTurn(number, outcome, f"s{number}", f"d{number}", True, (), 10, 1))
    return LoopRun(
        task_id=task_id,
        library="lib",
        difficulty="easy",
        model="m",
        condition=condition,
        sample=0,
        budget=budget,
        turns=tuple(turns),
        convergence_class="CONVERGED" if first_solved else "EXHAUSTED",
        first_solved_turn=first_solved,
        recomputed_class="CONVERGED" if first_solved else "EXHAUSTED",
    )


def test_ordered_conditions_put_known_conditions_first():
    assert study.ordered_conditions(["zeta", "resample", "full", "alpha"]) == ("full", "resample", "alpha", "zeta")


def test_ordered_difficulties_follow_the_scale_then_names():
    assert study.ordered_difficulties(["hard", "x", "easy", "medium"]) == ("easy", "medium", "hard", "x")


def test_usable_drops_infrastructure_errors_and_sorts_by_task():
    runs = [run("b", "full", 1), run("a", "full", None, infra=True), run("a2", "full", 2)]
    assert [r.task_id for r in study.usable(runs)] == ["a2", "b"]


def test_paired_comparison_counts_discordant_pairs_on_shared_tasks_only():
    full = [run("t1", "full", 1), run("t2", "full", 3), run("t3", "full", None), run("t4", "full", 2), run("x", "full", 1)]
    count = [run("t1", "count-only", 2), run("t2", "count-only", None), run("t3", "count-only", 4), run("t4", "count-only", None)]
    comparison = study.paired_comparison(("full", full), ("count-only", count))
    assert comparison is not None
    assert (comparison.tasks, comparison.both, comparison.first_only, comparison.second_only, comparison.neither) == (
        4, 1, 2, 1, 0
    )
    assert comparison.test.p_exact == 1.0  # 2 vs 1 discordant: 2·P(X ≤ 1 | n=3) = 2·4/8
    assert comparison.diff.diff == 0.25


def test_paired_comparison_at_a_budget_counts_late_solves_as_failures():
    loop = [run("t1", "full", 4)]
    resample = [run("t1", "resample", 2)]
    comparison = study.paired_comparison(("full", loop), ("resample", resample), budget=3)
    assert (comparison.first_only, comparison.second_only) == (0, 1)


def test_paired_comparison_without_shared_tasks_is_none():
    assert study.paired_comparison(("full", [run("a", "full", 1)]), ("count-only", [run("b", "count-only", 1)])) is None


def test_curve_and_markov_summary_agree_on_observed_values():
    runs = [run("t1", "full", 1), run("t2", "full", 3), run("t3", "full", None)]
    assert study.curve(runs, 5) == (1 / 3, 1 / 3, 2 / 3, 2 / 3, 2 / 3)
    summary = study.markov_summary("full", runs)
    assert summary.observed == study.curve(runs, 5)
    assert summary.predicted[0] == 1 / 3  # the chain starts from the observed turn-1 distribution


def test_pass_at_k_table_uses_the_fewest_samples_per_task():
    attempts = [AttemptRun("t1", "lib", "easy", "m", s, "solved" if s == 0 else "model_miss") for s in range(5)]
    attempts += [AttemptRun("t2", "lib", "easy", "m", s, "model_miss") for s in range(2)]
    ks, values, tasks = study.pass_at_k_table(attempts)
    assert (ks, tasks) == ((1, 2), 2)
    assert values == pytest.approx(((0.2 + 0.0) / 2, (0.4 + 0.0) / 2), abs=1e-15)
