"""Compose the report: which sections, in which order, with which tables and figures.

:func:`compose` returns the document and the plots it refers to; ``build`` renders and writes both.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from typing import Mapping, Sequence

from bench.loop.convergence import Outcome
from bench.report import markov, study, tables
from bench.report.adequacy import adequacy_section
from bench.report.cutoff import DateSplit, cutoff_section
from bench.report.document import Block, Bullets, Document, Figure, Heading, Paragraph
from bench.report.plots import BarPlot, LinePlot, Plot, Series, StackedBarPlot
from bench.report.prompts import PromptSummary, show_prompts
from bench.report.runs import AttemptRun, LoopRun, RecordSet

TITLE = "loopcontrolbench report"
CLASS_MEANINGS = (
    "`CONVERGED` — some turn within the budget resolved the task: every target test passed and no pass_to_pass "
    "test broke (a turn that passes its targets but breaks one is still failing).",
    "`STALLED` — a byte-identical failing candidate was emitted twice (a non-passing fixed point).",
    "`OSCILLATING` — a failing-state signature recurred after the code changed (a limit cycle or plateau).",
    "`EXHAUSTED` — the budget was spent, still failing, with no repeated candidate or signature.",
)


def compose(record_set: RecordSet, records_digest: str, record_count: int,
            prompts: Sequence[PromptSummary] = (),
            adequacy_bands: Mapping[str, str] | None = None,
            tiers: Sequence[Block] = (), header: Sequence[Block] = (),
            cutoff: DateSplit | None = None) -> tuple[Document, tuple[Plot, ...]]:
    """The document and its plots; ``prompts`` (``bench.report.prompts.prompt_runs``) adds the prompt sizes
    section when some run has a context setting or some model reported a prompt size; ``adequacy_bands`` (task
    id → test adequacy band) adds the results by adequacy when some task of the records was measured; ``tiers``
    (bench.report.tiers.tier_section) is the table of solved, resolved and verified units; ``header``
    (bench.report.headline.header_blocks): the headline sentence and the run's settings, first; ``cutoff``
    (bench.report.cutoff.DateSplit) adds every headline again for the tasks dated before and after a cut-off."""
    blocks: list[Block] = [*header, *_header(record_set, records_digest, record_count)]
    if cutoff is not None:
        blocks += cutoff_section(record_set, cutoff)
    plots: list[Plot] = []
    slugs = model_slugs({run.model for run in record_set.attempts} | {run.model for run in record_set.loops})
    if record_set.attempts:
        blocks.append(Heading(2, "Single attempts" if any(run.prompted for run in record_set.attempts)
                              else "Predictions (given patches, one attempt each)"))
        for model, attempts in study.group(record_set.attempts, key=lambda run: run.model).items():
            _extend(blocks, plots, attempt_section(model, attempts, slugs[model]))
    if record_set.loops:
        blocks.append(Heading(2, "Convergence of the repair loop"))
        blocks.append(Bullets(CLASS_MEANINGS))
        for model, loops in study.group(record_set.loops, key=lambda run: run.model).items():
            _extend(blocks, plots, loop_section(model, loops, slugs[model]))
    if not record_set.attempts and not record_set.loops:
        blocks.append(Paragraph("No `loop` or `attempt` records in the input."))
    blocks += tiers  # solved ⊇ resolved ⊇ verified (bench.report.tiers), when some unit was resolved
    if adequacy_bands:
        blocks += adequacy_section(record_set, adequacy_bands)
    if show_prompts(prompts):
        blocks += prompt_section(prompts)
    return Document(TITLE, tuple(blocks)), tuple(plots)


def prompt_section(prompts: Sequence[PromptSummary]) -> list[Block]:
    """The prompt sizes of every run, one row each; the runs of a context sweep sort side by side."""
    return [
        Heading(2, "Prompt sizes"),
        Paragraph(
            "A run is one model under one context setting (`--context` policy, `--context-budget`, tokenizer). "
            "Cut: prompts that left out blocks of code to fit the budget. Solved and resolved count units as "
            "`summary.json` does (attempts, loops and resample runs; a unit with an infrastructure error is "
            "neither). A prompt that did not fit the model's context is never answered, so without a context "
            "setting its size is unknown and the largest prompts may be missing."
        ),
        tables.prompt_table(prompts),
    ]


def model_slugs(models: set[str]) -> dict[str, str]:
    """File-name-safe names per model; a short hash disambiguates models that slug alike."""
    plain = {model: re.sub(r"[^a-z0-9]+", "-", model.lower()).strip("-") or "model" for model in models}
    counts = Counter(plain.values())
    return {
        model: slug if counts[slug] == 1 else f"{slug}-{hashlib.blake2b(model.encode(), digest_size=4).hexdigest()}"
        for model, slug in plain.items()
    }


def attempt_section(model: str, attempts: Sequence[AttemptRun], slug: str) -> tuple[list[Block], list[Plot]]:
    table = tables.attempt_table(attempts)
    blocks: list[Block] = [Heading(3, f"Model `{model}`"), table]
    pass_table = tables.pass_at_k_table(attempts)
    if pass_table is not None:
        blocks.append(pass_table)
        blocks.append(Paragraph("Intervals treat every sample as independent; samples of one task are correlated."))
    by_library = study.group(attempts, key=lambda run: run.library)
    rates = [
        study.rate(sum(r.resolved for r in runs), sum(r.outcome != "infrastructure_error" for r in runs))
        for runs in by_library.values()
    ]
    plot = BarPlot(
        filename=f"attempts-{slug}.png",
        title=f"Single-attempt resolved rate — {model}",
        ylabel="resolved rate (95 % Wilson CI)",
        categories=tuple(by_library),
        values=tuple(rate.value for rate in rates),  # None when nothing was scored: no bar and no point
        lows=tuple(rate.interval.low if rate.n else 0.0 for rate in rates),  # n = 0: no bar, no error bar
        highs=tuple(rate.interval.high if rate.n else 0.0 for rate in rates),
    )
    blocks.append(Figure(plot.filename, plot.title, "Resolved rate per library with 95 % Wilson intervals."))
    return blocks, [plot]


def loop_section(model: str, loops: Sequence[LoopRun], slug: str) -> tuple[list[Block], list[Plot]]:
    conditions = study.ordered_conditions(run.condition for run in loops)
    excluded = Counter(run.condition for run in loops if run.infrastructure_error)
    usable = study.usable(loops)
    by_condition = {c: [run for run in usable if run.condition == c] for c in conditions}
    by_condition = {c: runs for c, runs in by_condition.items() if runs}
    blocks: list[Block] = [Heading(3, f"Model `{model}`")]
    plots: list[Plot] = []
    if not by_condition:
        blocks.append(Paragraph("Every loop run of this model hit an infrastructure error; nothing to report."))
        return blocks, plots
    blocks.append(tables.convergence_table(by_condition, excluded))
    if len({run.difficulty for runs in by_condition.values() for run in runs}) > 1:  # else the table above again
        blocks.append(tables.difficulty_table(by_condition))
    blocks.append(tables.turn_outcome_table(by_condition))
    classes = StackedBarPlot(
        filename=f"classes-{slug}.png",
        title=f"Trajectory classes — {model}",
        ylabel="runs",
        categories=tuple(by_condition),
        segments=tuple(
            (o.value, tuple(sum(r.convergence_class == o.value for r in runs) for runs in by_condition.values()))
            for o in Outcome
        ),
    )
    blocks.append(Figure(classes.filename, classes.title, "Runs per convergence class and condition."))
    plots.append(classes)
    blocks += _feedback_effect(by_condition)
    per_library = tables.library_table(by_condition)
    if per_library is not None:
        blocks.append(per_library)
    curve_blocks, curve_plot = _iterations(model, slug, by_condition)
    blocks += curve_blocks
    plots.append(curve_plot)
    blocks += _loop_vs_resampling(by_condition)
    markov_blocks, markov_plot = _markov(model, slug, by_condition)
    blocks += markov_blocks
    plots.append(markov_plot)
    return blocks, plots


def _header(record_set: RecordSet, records_digest: str, record_count: int) -> list[Block]:
    present = [f"{n} {name}" for n, name in ((len(record_set.loops), "loop runs"),
                                              (len(record_set.attempts), "single attempts")) if n]
    summary = (
        f"{record_count} records{': ' + ', '.join(present) if present else ''}. "
        f"Records digest (sha256 of the sorted canonical records): `{records_digest}`."
    )
    notes = []
    if record_set.other_kinds:
        kinds = ", ".join(f"{kind} ×{count}" for kind, count in record_set.other_kinds)
        notes.append(f"Skipped records of other kinds: {kinds}.")
    if record_set.duplicates:
        notes.append(f"{record_set.duplicates} duplicate units dropped (the first occurrence was kept).")
    infra = sum(run.infrastructure_error for run in record_set.loops)
    infra_attempts = sum(run.outcome == "infrastructure_error" for run in record_set.attempts)
    if infra or infra_attempts:
        notes.append(
            f"Infrastructure errors are not model failures and are excluded from every rate: {infra} loop runs, "
            f"{infra_attempts} single attempts."
        )
    mismatches = record_set.class_mismatches
    if mismatches:
        names = ", ".join(sorted(f"{run.task_id}/{run.condition}" for run in mismatches)[:10])
        notes.append(
            f"{len(mismatches)} loop runs carry a class that differs from the one recomputed from their turns "
            f"(the recorded class is used): {names}."
        )
    blocks: list[Block] = [Paragraph(summary)]
    if notes:
        blocks.append(Bullets(tuple(notes)))
    return blocks


def _feedback_effect(by_condition: dict[str, list[LoopRun]]) -> list[Block]:
    """The paired comparison of the two feedback conditions; nothing for a run of only one of them."""
    if study.FULL not in by_condition or study.COUNT_ONLY not in by_condition:
        return []
    blocks: list[Block] = [Heading(4, "Feedback effect: full vs count-only")]
    comparison = study.paired_comparison(
        (study.FULL, by_condition[study.FULL]), (study.COUNT_ONLY, by_condition[study.COUNT_ONLY])
    )
    if comparison is None:
        blocks.append(Paragraph("No task was run in both conditions."))
        return blocks
    blocks.append(
        Paragraph(
            "Tasks run in both conditions are paired; the exact McNemar test uses only the discordant pairs "
            "(b: converged with full feedback only, c: with the failure count only)."
        )
    )
    blocks += [tables.contingency_table(comparison), tables.paired_test_table(comparison)]
    return blocks


def _iterations(model: str, slug: str, by_condition: dict[str, list[LoopRun]]) -> tuple[list[Block], Plot]:
    curves = {c: study.curve(runs, study.horizon(runs)) for c, runs in by_condition.items()}
    plot = LinePlot(
        filename=f"convergence-{slug}.png",
        title=f"Iterations to converge — {model}",
        xlabel="turn",
        ylabel="P(converged by turn)",
        series=tuple(Series(c, tuple(values), c) for c, values in curves.items()),
    )
    caption = "Fraction of runs converged by turn t (for `resample`: resolved by any of the first t samples)"
    blocks: list[Block] = [
        Heading(4, "Iterations to converge"),
        tables.curve_table(curves, caption),
        Figure(plot.filename, plot.title, "Cumulative convergence per condition."),
    ]
    return blocks, plot


def _loop_vs_resampling(by_condition: dict[str, list[LoopRun]]) -> list[Block]:
    """Each loop condition against best-of-N resampling; nothing for a run without both."""
    loop_conditions = [c for c in (study.FULL, study.COUNT_ONLY) if c in by_condition]
    if study.RESAMPLE not in by_condition or not loop_conditions:
        return []
    blocks: list[Block] = [Heading(4, "Loop vs resampling at equal budget")]
    for condition in loop_conditions:
        budget = min(study.horizon(by_condition[condition]), study.horizon(by_condition[study.RESAMPLE]))
        comparison = study.paired_comparison(
            (condition, by_condition[condition]), (study.RESAMPLE, by_condition[study.RESAMPLE]), budget=budget
        )
        if comparison is None:
            blocks.append(Paragraph(f"No task was run both as `{condition}` and as `resample`."))
            continue
        blocks.append(
            Paragraph(
                f"`{condition}` loop vs best-of-{budget} resampling, both given {budget} model calls per task; "
                "success means resolved within that budget."
            )
        )
        blocks += [tables.contingency_table(comparison), tables.paired_test_table(comparison)]
    return blocks


def _markov(model: str, slug: str, by_condition: dict[str, list[LoopRun]]) -> tuple[list[Block], Plot]:
    summaries = [study.markov_summary(c, runs) for c, runs in by_condition.items()]
    series: list[Series] = []
    for summary in summaries:
        series.append(Series(f"{summary.condition} observed", summary.observed, summary.condition))
        series.append(Series(f"{summary.condition} Markov", summary.predicted, summary.condition, dashed=True))
    plot = LinePlot(
        filename=f"markov-{slug}.png",
        title=f"Markov chain vs observed convergence — {model}",
        xlabel="turn",
        ylabel="P(solved by turn)",
        series=tuple(series),
    )
    blocks: list[Block] = [
        Heading(4, "Markov model of the loop"),
        Paragraph(
            "States per turn: `solved` (absorbing: resolved, as for convergence), `failing` (compiles, a target "
            "or pass_to_pass test fails), `broken` (does not compile or collect), `no-edit` (no applicable "
            "candidate). Correction rate: P(solved next | unsolved now); regression rate: P(broken next | failing "
            "now)."
        ),
        tables.markov_rates_table(summaries),
    ]
    blocks += [tables.transition_table(summary) for summary in summaries]
    blocks.append(tables.markov_curve_table(summaries))
    blocks.append(Figure(plot.filename, plot.title, "Solid: observed; dashed: predicted by the fitted chain."))
    blocks.append(Paragraph("Assumptions of the fit:"))
    blocks.append(Bullets(tuple(line.removeprefix("- ") for line in markov.assumptions().splitlines())))
    return blocks, plot


def _extend(blocks: list[Block], plots: list[Plot], section: tuple[list[Block], list[Plot]]) -> None:
    blocks.extend(section[0])
    plots.extend(section[1])
