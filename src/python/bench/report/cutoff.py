"""Results before and after a training cut-off: a model meets a task it cannot have seen only when the task is
dated after its cut-off (a PR's merge, a mutated release's upload, a synthetic task's authoring), so every
headline figure is shown for both sides, each with its interval.

The task dates come from the checkout's specs, given by the caller as task id → day; the report stays a pure
function of its inputs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from bench.report.adequacy import split_table
from bench.report.document import Block, Heading, Paragraph
from bench.report.headline import headline
from bench.report.runs import RecordSet
from bench.spec.dates import UNDATED, side_of

SIDES = ("before", "after", UNDATED)


@dataclass(frozen=True)
class DateSplit:
    cutoff: str  # YYYY-MM-DD: tasks dated on or after it are "after"
    days: Mapping[str, str]  # task id → its date ("" when its spec has none or the task is unknown)

    def side(self, task_id: str) -> str:
        return side_of(self.days.get(task_id, ""), self.cutoff)


def cutoff_section(record_set: RecordSet, split: DateSplit) -> list[Block]:
    """The headline of each side, then each model's rates per side with their 95 % intervals."""
    blocks: list[Block] = [Heading(2, f"Before and after the cut-off {split.cutoff}")]
    labels = {"before": f"Tasks dated before {split.cutoff}", "after": f"Tasks dated on or after {split.cutoff}",
              UNDATED: "Undated tasks"}
    for side in SIDES:
        part = _restricted(record_set, lambda task_id: split.side(task_id) == side)
        tasks = {r.task_id for r in part.attempts} | {r.task_id for r in part.loops}
        if tasks:
            blocks.append(Paragraph(f"**{labels[side]}** ({len(tasks)} task{'s' * (len(tasks) != 1)}): "
                                    f"{headline(part)}"))
        elif side != UNDATED:
            blocks.append(Paragraph(f"**{labels[side]}**: no unit of this run."))
    blocks.append(split_table(record_set, split.side, SIDES, "task date",
                              f"Results by the date of their tasks: `before` — dated before {split.cutoff}; "
                              f"`after` — on or after it (the tasks a model with that training cut-off cannot "
                              f"have seen); `undated` — no date in the checkout's specs"))
    return blocks


def _restricted(record_set: RecordSet, keep) -> RecordSet:
    return RecordSet(loops=tuple(r for r in record_set.loops if keep(r.task_id)),
                     attempts=tuple(r for r in record_set.attempts if keep(r.task_id)),
                     other_kinds=record_set.other_kinds, duplicates=record_set.duplicates)
