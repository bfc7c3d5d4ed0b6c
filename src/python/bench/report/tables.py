"""Tables of the report, built from typed runs and ``study`` numbers; every cell is a formatted string.

Number formats are fixed (rates to three decimals, p-values to four significant digits) so the rendered
report is byte-stable.
"""

from __future__ import annotations

from collections import Counter
from typing import Mapping, Sequence

from bench.loop.records import CLASSES, OUTCOMES
from bench.report import stats, study
from bench.report.document import Table
from bench.report.prompts import PromptSummary
from bench.report.runs import AttemptRun, LoopRun
ALL = "all"


def fmt_float(value: float | None, digits: int = 3) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def fmt_p(value: float) -> str:
    return f"{value:.4g}"


def fmt_interval(rate: study.Rate) -> str:
    if rate.n == 0:
        return "–"
    return f"[{rate.interval.low:.3f}, {rate.interval.high:.3f}]"


def fmt_share(count: int, total: int) -> str:
    return f"{count} ({100.0 * count / total:.0f} %)" if total else str(count)


def attempt_table(attempts: Sequence[AttemptRun]) -> Table:
    """Solve rate per library and overall; infrastructure errors are listed but not in the denominator. Without
    a model (predictions: given patches), no time-out can happen and its column is left out."""
    prompted = any(run.prompted for run in attempts)
    outcomes = OUTCOMES if prompted else tuple(outcome for outcome in OUTCOMES if outcome != "model_timeout")
    rows = []
    groups = study.group(attempts, key=lambda run: run.library)
    groups[ALL] = list(attempts)
    for library, runs in groups.items():
        counts = Counter(run.outcome for run in runs)
        scored = len(runs) - counts["infrastructure_error"]
        resolved = study.rate(sum(run.resolved for run in runs), scored)
        rows.append(
            (library, str(len({run.task_id for run in runs})), str(scored), str(sum(run.resolved for run in runs)),
             fmt_float(resolved.value), fmt_interval(resolved))
            + tuple(str(counts[outcome]) for outcome in outcomes)
        )
    columns = ("library", "tasks", "attempts", "resolved", "rate", "95 % CI") + outcomes
    return Table(columns, tuple(rows), caption="Single attempts by library: resolved (solved, no pass_to_pass "
                 "test broken) with Wilson 95 % intervals; `solved` ignores pass_to_pass; `tampered` edits "
                 "tried to influence the verdict")


def pass_at_k_table(attempts: Sequence[AttemptRun]) -> Table | None:
    """Mean unbiased pass@k per library and overall, when some task has more than one sample."""
    per_task = Counter(run.task_id for run in attempts)
    if max(per_task.values(), default=0) <= 1:
        return None
    groups = study.group(attempts, key=lambda run: run.library)
    groups[ALL] = list(attempts)
    results = {library: study.pass_at_k_table(runs) for library, runs in groups.items()}
    ks = sorted({k for ks, _, _ in results.values() for k in ks})
    rows = []
    for library, (library_ks, values, tasks) in results.items():
        by_k = dict(zip(library_ks, values))
        rows.append((library, str(tasks)) + tuple(fmt_float(by_k.get(k)) for k in ks))
    columns = ("library", "tasks") + tuple(f"pass@{k}" for k in ks)
    return Table(columns, tuple(rows), caption="pass@k (unbiased estimator, mean over tasks; k ≤ fewest samples per task)")


def convergence_table(by_condition: Mapping[str, Sequence[LoopRun]], excluded: Mapping[str, int]) -> Table:
    """Convergence rate and class distribution per condition."""
    rows = []
    for condition, runs in by_condition.items():
        converged = study.convergence_rate(runs)
        classes = Counter(run.convergence_class for run in runs)
        rows.append(
            (condition, str(len(runs)), str(converged.successes), fmt_float(converged.value), fmt_interval(converged))
            + tuple(fmt_share(classes[name], len(runs)) for name in CLASSES[1:])
            + (str(excluded.get(condition, 0)),)
        )
    columns = ("condition", "runs", "converged", "rate", "95 % CI") + CLASSES[1:] + ("excluded (infra)",)
    return Table(columns, tuple(rows), caption="Convergence by feedback condition (Wilson 95 % intervals)")


def difficulty_table(by_condition: Mapping[str, Sequence[LoopRun]]) -> Table:
    rows = []
    for condition, runs in by_condition.items():
        groups = study.group(runs, key=lambda run: run.difficulty)
        for difficulty in study.ordered_difficulties(groups):
            group = groups[difficulty]
            converged = study.convergence_rate(group)
            rows.append(
                (condition, difficulty, str(len(group)), str(converged.successes), fmt_float(converged.value),
                 fmt_interval(converged))
            )
    columns = ("condition", "difficulty", "runs", "converged", "rate", "95 % CI")
    return Table(columns, tuple(rows), caption="Convergence by condition and difficulty", numeric=(False, False) + (True,) * 4)


def turn_outcome_table(by_condition: Mapping[str, Sequence[LoopRun]]) -> Table:
    """What each turn ended as, and the mean tokens spent per run (worker and controller)."""
    rows = []
    for condition, runs in by_condition.items():
        turns = [turn for run in runs for turn in run.turns]
        counts = Counter(turn.outcome for turn in turns)
        runs_n = len(runs) or 1
        worker = sum(turn.worker_tokens for turn in turns) / runs_n
        controller = sum(turn.controller_tokens for turn in turns) / runs_n
        rows.append(
            (condition, str(len(turns)), fmt_float(len(turns) / runs_n, 2))
            + tuple(str(counts[outcome]) for outcome in OUTCOMES)
            + (f"{worker:.0f}", f"{controller:.0f}")
        )
    columns = ("condition", "turns", "turns/run") + OUTCOMES + ("worker tokens/run", "controller tokens/run")
    return Table(columns, tuple(rows), caption="Turn outcomes and mean tokens per run")


def library_table(by_condition: Mapping[str, Sequence[LoopRun]]) -> Table | None:
    """Convergence per library and condition, with each library's discordant pairs and exact McNemar p when both
    feedback conditions ran; None for runs of a single library."""
    libraries = sorted({run.library for runs in by_condition.values() for run in runs})
    if len(libraries) < 2:
        return None
    paired = study.FULL in by_condition and study.COUNT_ONLY in by_condition
    rows = []
    for library in libraries:
        mine = {c: [run for run in runs if run.library == library] for c, runs in by_condition.items()}
        row = [library] + [f"{study.convergence_rate(runs).successes}/{len(runs)}" for runs in mine.values()]
        if paired:
            outcomes = study.paired_outcomes(mine[study.FULL], mine[study.COUNT_ONLY])
            if outcomes is None:
                row += ["–", "–"]
            else:
                b = sum(x and not y for x, y in zip(*outcomes))
                c = sum(y and not x for x, y in zip(*outcomes))
                row += [f"{b}, {c}", fmt_p(stats.mcnemar(b, c).p_exact)]
        rows.append(tuple(row))
    columns = ("library",) + tuple(f"{c} converged" for c in by_condition)
    if paired:
        columns += ("discordant (b, c)", "exact McNemar p")
    return Table(columns, tuple(rows), caption="Convergence per library (b: converged with full feedback only, "
                                               "c: with the failure count only)")


def contingency_table(comparison: study.PairedComparison) -> Table:
    first, second = comparison.first, comparison.second
    rows = (
        (f"{first} converged", str(comparison.both), str(comparison.first_only)),
        (f"{first} not converged", str(comparison.second_only), str(comparison.neither)),
    )
    return Table(
        ("", f"{second} converged", f"{second} not converged"),
        rows,
        caption=f"Paired outcomes on {comparison.tasks} shared tasks",
    )


def paired_test_table(comparison: study.PairedComparison) -> Table:
    diff = comparison.diff
    rows = (
        ("discordant pairs (b, c)", f"{comparison.first_only}, {comparison.second_only}"),
        ("exact McNemar p (two-sided binomial)", fmt_p(comparison.test.p_exact)),
        ("McNemar χ² with continuity correction", f"{comparison.test.chi2:.3f} (p = {fmt_p(comparison.test.p_chi2)})"),
        (
            f"rate difference {comparison.first} − {comparison.second}",
            f"{diff.diff:+.3f} [{diff.low:+.3f}, {diff.high:+.3f}]",
        ),
    )
    caption = (
        f"{comparison.first} vs {comparison.second}: tests and paired bootstrap 95 % CI "
        f"({diff.resamples} resamples, seed {diff.seed})"
    )
    return Table(("statistic", "value"), rows, caption=caption, numeric=(False, True))


def curve_table(curves: Mapping[str, Sequence[float]], caption: str) -> Table:
    turns = max((len(values) for values in curves.values()), default=0)
    rows = tuple(
        (str(t),) + tuple(fmt_float(values[t - 1]) if t <= len(values) else "–" for values in curves.values())
        for t in range(1, turns + 1)
    )
    return Table(("turn",) + tuple(curves), rows, caption=caption)


def transition_table(summary: study.MarkovSummary) -> Table:
    fit = summary.fit
    rows = tuple(
        (f"from {state}",) + tuple(fmt_float(p) for p in fit.matrix[i]) + (str(sum(fit.counts[i])),)
        for i, state in enumerate(fit.states)
    )
    rows += (("initial (turn 1)",) + tuple(fmt_float(p) for p in fit.initial) + (str(fit.trajectories),),)
    columns = ("",) + tuple(f"to {state}" for state in fit.states) + ("transitions",)
    return Table(columns, rows, caption=f"Fitted transition matrix — {summary.condition}")


def markov_rates_table(summaries: Sequence[study.MarkovSummary]) -> Table:
    rows = tuple(
        (
            summary.condition,
            fmt_float(summary.rates.correction),
            fmt_float(summary.rates.regression),
            fmt_float(summary.gap),
            ", ".join(summary.fit.unobserved_rows) or "–",
        )
        for summary in summaries
    )
    columns = ("condition", "correction rate", "regression rate", "max |observed − predicted|", "unobserved states")
    return Table(columns, rows, caption="Per-turn rates of the fitted chains", numeric=(False, True, True, True, False))


def markov_curve_table(summaries: Sequence[study.MarkovSummary]) -> Table:
    curves: dict[str, Sequence[float]] = {}
    for summary in summaries:
        curves[f"{summary.condition} observed"] = summary.observed
        curves[f"{summary.condition} predicted"] = summary.predicted
    return curve_table(curves, "P(solved by turn t): observed vs predicted by the chain")


def prompt_table(summaries: Sequence[PromptSummary]) -> Table:
    """One row per run: its context setting, the size of its units' first prompts, how many were cut to the
    budget, and how many units solved and resolved. The edit format shows when some record names one."""
    formats = any(summary.edit_format is not None for summary in summaries)
    rows = []
    for s in summaries:
        row = (s.model, s.policy, "–" if s.budget is None else str(s.budget))
        row += (s.edit_format or "–",) if formats else ()
        row += (s.tokenizer or "model (usage)", str(s.units), str(s.sized), fmt_float(s.median_tokens, 0),
                fmt_float(s.p90_tokens, 0), "–" if s.max_tokens is None else str(s.max_tokens),
                str(s.cut) if s.has_context else "–", str(s.solved), str(s.resolved))
        rows.append(row)
    columns = ("model", "context", "budget") + (("edit format",) if formats else ()) + (
        "counted by", "units", "sized", "median", "p90", "max", "cut to budget", "solved", "resolved")
    numeric = (False, False, True) + (False,) * formats + (False,) + (True,) * 8
    return Table(columns, tuple(rows), numeric=numeric, caption="Prompt sizes per run: tokens of each unit's first "
                 "prompt (p90 interpolated), counted by the run's tokenizer, or as the model reported them where the "
                 "run has no context setting; sized: units whose prompt size is known")
