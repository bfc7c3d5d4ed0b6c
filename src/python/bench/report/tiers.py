"""The tiers of a run: solved ⊇ resolved ⊇ verified, per model and unit kind.

*Solved*: every fail_to_pass test passed (at some turn, for a loop). *Resolved*: solved with no pass_to_pass
test broken. *Verified*: resolved, and every probe of the task's probe set answered as the reference answers it
(``bench.probes``); a resolved unit whose task has no probes is counted apart, never as verified.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

from bench.report.document import Block, Heading, Paragraph, Table


@dataclass(frozen=True)
class Tiers:
    units: int
    solved: int
    resolved: int
    verified: int
    diverged: int  # resolved, and some probe diverged from the reference
    unprobed: int  # resolved, and the task has no probes

    def to_json(self) -> dict:
        return {"units": self.units, "solved": self.solved, "resolved": self.resolved, "verified": self.verified,
                "resolved_not_verified": self.diverged, "resolved_without_probes": self.unprobed}


def tiers(records: Iterable[Mapping]) -> Tiers:
    """The tiers of raw records (``results.jsonl`` lines); infrastructure errors are not units."""
    from bench.report.console import resolved
    from bench.report.run_summary import errored, solved

    scored = [r for r in records if not errored(r)]
    done = [r for r in scored if resolved(r)]
    return Tiers(len(scored), sum(solved(r) for r in scored), len(done),
                 sum(r.get("verification") == "verified" for r in done),
                 sum(r.get("verification") == "diverged" for r in done),
                 sum(r.get("verification") == "no probes" for r in done))


def tier_line(records: Sequence[Mapping]) -> str:
    t = tiers(records)
    return (f"tiers: {t.units} units, solved {t.solved} ⊇ resolved {t.resolved} ⊇ verified {t.verified} "
            f"({t.diverged} resolved but not verified: a probe diverged; {t.unprobed} resolved without probes)")


def tier_section(records: Sequence[Mapping]) -> list[Block]:
    """A table of the tiers by model and unit kind, when some unit was resolved."""
    groups: dict[tuple[str, str], list] = defaultdict(list)
    for record in records:
        if record.get("kind") in ("attempt", "loop", "resample"):
            groups[(str(record.get("model")), str(record.get("kind")))].append(record)
    rows = []
    for (model, kind), members in sorted(groups.items()):
        t = tiers(members)
        checked = any(record.get("verification") for record in members)  # else the verified tier did not run
        rows.append((model, kind, str(t.units), str(t.solved), str(t.resolved))
                    + ((str(t.verified), str(t.diverged), str(t.unprobed)) if checked else ("–", "–", "–")))
    if not rows or not any(int(row[4]) for row in rows):
        return []
    not_run = [] if any(row[5] != "–" for row in rows) else [Paragraph(
        "The verified tier did not run for these units (their records carry no verification): only solved and "
        "resolved are counted.")]
    return [
        Heading(2, "Solved, resolved, verified"),
        *not_run,
        Paragraph("A resolved unit replays its task's probe set — inputs recorded under the reference's tests and "
                  "generated around them — in a fresh sandbox; its outputs are compared with the reference's on "
                  "the host. Verified: every probe agrees. Not verified: the first divergence is in the record "
                  "(`bench view` shows it). Without probes: the task's functions took or gave nothing that can be "
                  "written faithfully."),
        Table(("model", "unit", "units", "solved", "resolved", "verified", "not verified", "no probes"),
              tuple(rows), caption="solved ⊇ resolved ⊇ verified"),
    ]
