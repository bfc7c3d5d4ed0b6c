"""Results split by the test adequacy of their tasks: a solve on a task whose tests let a near miss of the fix
through (``bench adequacy``) may be a wrong fix the tests took for right, so a reader sees each band apart.

The bands come from the checkout's adequacy records (``bench.gate.adequacy_store``), given by the caller as
task id → band; the report stays a pure function of its inputs.
"""

from __future__ import annotations

from typing import Callable, Mapping, Sequence

from bench.report import study
from bench.report.document import Block, Heading, Paragraph, Table
from bench.report.runs import RecordSet

UNMEASURED = "unmeasured"
# the order bands are shown in (bench.gate.adequacy_store.BANDS)
ORDER = ("all caught", "some survive", "no near miss", UNMEASURED)


def _row(what: str, band: str, task_ids: set[str], units: int, good: int) -> tuple[str, ...]:
    rate = study.rate(good, units)
    interval = "–" if rate.n == 0 else f"[{rate.interval.low:.3f}, {rate.interval.high:.3f}]"
    value = "–" if rate.value is None else f"{rate.value:.3f}"
    return (what, band, str(len(task_ids)), str(units), str(good), value, interval)


def split_table(record_set: RecordSet, group_of: Callable[[str], str], order: Sequence[str], column: str,
                caption: str) -> Table:
    """Each model's attempts, and its loops per condition, split by a grouping of their tasks (task id → group,
    shown in ``order``, then by name): units, resolved or converged, the rate and its 95 % interval."""
    def ordered(groups: set[str]) -> list[str]:
        return sorted(groups, key=lambda g: (order.index(g) if g in order else len(order), g))

    rows = []
    attempts = [run for run in record_set.attempts if run.outcome != "infrastructure_error"]
    for model, runs in study.group(attempts, key=lambda r: r.model).items():
        by_group = study.group(runs, key=lambda r: group_of(r.task_id))
        for name in ordered(set(by_group)):
            group = by_group[name]
            rows.append(_row(f"`{model}` attempts", name, {r.task_id for r in group}, len(group),
                             sum(r.resolved for r in group)))
    loops = study.usable(record_set.loops)
    for model, runs in study.group(loops, key=lambda r: r.model).items():
        for condition in study.ordered_conditions(r.condition for r in runs):
            by_group = study.group([r for r in runs if r.condition == condition], key=lambda r: group_of(r.task_id))
            for name in ordered(set(by_group)):
                group = by_group[name]
                rows.append(_row(f"`{model}` loops, {condition}", name, {r.task_id for r in group}, len(group),
                                 sum(r.converged for r in group)))
    columns = ("runs", column, "tasks", "units", "resolved / converged", "rate", "95 % CI")
    return Table(columns, tuple(rows), caption=caption, numeric=(False, False) + (True,) * 5)


def adequacy_table(record_set: RecordSet, bands: Mapping[str, str]) -> Table:
    return split_table(record_set, lambda task_id: bands.get(task_id, UNMEASURED), ORDER, "test adequacy",
                       "Results by the test adequacy of their tasks: `all caught` — the tests killed every near miss "
                       "of the fix; `some survive` — they accept at least one wrong near miss, so a solve there may "
                       "be wrong; `no near miss` — none could be made; `unmeasured`")


def adequacy_section(record_set: RecordSet, bands: Mapping[str, str]) -> list[Block]:
    """The section, or nothing when no task of the records was measured."""
    task_ids = {r.task_id for r in record_set.attempts} | {r.task_id for r in record_set.loops}
    if all(bands.get(task_id, UNMEASURED) == UNMEASURED for task_id in task_ids):
        return []
    weak = sorted({r.task_id for r in record_set.attempts if r.resolved and bands.get(r.task_id) == "some survive"}
                  | {r.task_id for r in study.usable(record_set.loops)
                     if r.converged and bands.get(r.task_id) == "some survive"})
    blocks: list[Block] = [Heading(2, "Results by test adequacy"), adequacy_table(record_set, bands)]
    if weak:
        blocks.append(Paragraph(f"Solved on a task whose tests let a near miss through ({len(weak)} tasks; check "
                                f"these fixes by hand): " + ", ".join(f"`{t}`" for t in weak) + "."))
    return blocks

