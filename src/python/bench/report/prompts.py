"""Prompt sizes per run: how many tokens the first prompt of each unit took, how many were cut to a budget, and
how many units solved and resolved, so runs that differ in context policy (``--context``) can be compared.

A run is the records of one model under one context setting (policy, budget, tokenizer) and one edit format.
Records of a run with a non-default context carry ``context`` (``{"policy", "budget", "tokenizer",
"prompt_tokens", "cut", "blocks"}``); records without it are of the default ``files`` policy with no budget.

A unit's prompt size is ``context.prompt_tokens`` when the record has a context (counted with the run's
tokenizer, the unit the budget is in), else ``usage.prompt_tokens`` when the model reported one (> 0). Loop
and resample records of default runs report no prompt size (their turns count prompt and completion
together). Solved and resolved are what ``summary.json`` says (:mod:`bench.report.run_summary`): a unit
touched by an infrastructure error is neither. Records are read with ``bench.loop.records.UnitRecord``.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from bench.loop.records import UNIT_KINDS, UnitRecord
from bench.report.runs import unit_key
from bench.report.stats import quantile

DEFAULT_POLICY = "files"


@dataclass(frozen=True)
class PromptSummary:
    model: str
    policy: str
    budget: int | None  # tokens of the whole prompt; None: no budget
    tokenizer: str | None  # what prompt_tokens count in; None: no context field (sizes as the model reported)
    edit_format: str | None  # as the records say; None: not recorded
    units: int
    sized: int  # units with a known prompt size
    min_tokens: int | None  # None when no size is known
    median_tokens: float | None
    p90_tokens: float | None
    max_tokens: int | None
    cut: int  # prompts that left out blocks to fit the budget
    solved: int
    resolved: int

    @property
    def has_context(self) -> bool:
        """The records carry a context field (a run with a non-default --context or --context-budget)."""
        return self.tokenizer is not None


def settings_of(record: UnitRecord) -> tuple[str, int | None, str | None]:
    """(policy, budget, tokenizer) of the record's prompt: its context, else the default (files, None, None)."""
    context = record.context
    if context is None:
        return DEFAULT_POLICY, None, None
    return context.policy or DEFAULT_POLICY, context.budget, context.tokenizer or "estimate"


def prompt_tokens(record: UnitRecord) -> int | None:
    """The size of the unit's first prompt in tokens; None when the record does not say."""
    if record.context is not None:
        return record.context.prompt_tokens
    value = record.usage.prompt_tokens if record.usage is not None else None
    return value if value is not None and value > 0 else None


def prompt_summary(records: Sequence[UnitRecord]) -> PromptSummary:
    """The prompt sizes of one run's units. Its context settings come from the records that carry a context
    (a unit that failed before its prompt was built carries none); ValueError when they disagree, or when the
    records are of more than one model or edit format."""
    settings = {settings_of(r) for r in records if r.context is not None}
    models = {r.model for r in records}
    formats = {r.edit_format for r in records}
    if len(settings) > 1 or len(models) > 1 or len(formats) > 1:
        raise ValueError(f"records of more than one run: models {sorted(models)}, edit formats "
                         f"{sorted(map(str, formats))}, context settings {sorted(settings, key=str)}")
    policy, budget, tokenizer = settings.pop() if settings else (DEFAULT_POLICY, None, None)
    sizes = sorted(size for size in map(prompt_tokens, records) if size is not None)
    scored = [r for r in records if not r.errored]
    edit_format = formats.pop() if formats else None
    return PromptSummary(
        model=models.pop() if models else "",
        policy=policy,
        budget=budget,
        tokenizer=tokenizer,
        edit_format=str(edit_format) if edit_format is not None else None,
        units=len(records),
        sized=len(sizes),
        min_tokens=sizes[0] if sizes else None,
        median_tokens=quantile(sizes, 0.5) if sizes else None,
        p90_tokens=quantile(sizes, 0.9) if sizes else None,
        max_tokens=sizes[-1] if sizes else None,
        cut=sum(r.context is not None and r.context.cut for r in records),
        solved=sum(r.solved for r in scored),
        resolved=sum(r.is_resolved for r in scored),
    )


def prompt_runs(records: Sequence[Mapping[str, Any]]) -> tuple[PromptSummary, ...]:
    """A summary per run in the records, sorted by model, then policy, budget (none first), tokenizer and edit
    format, so the runs of a context sweep stand side by side.

    Only unit records count (kinds ``attempt``, ``loop``, ``resample``), each parsed by
    ``UnitRecord.from_json`` (CheckFailed names a malformed one); a unit recorded twice in one run keeps
    its first occurrence, as everywhere in the report (the same task under another setting is another run's
    unit; the rest of the report, keyed without the setting, drops it as a duplicate). A unit that never built
    a prompt (no context, no ``prompt_sha256`` and no turns: it failed before) joins its model's run when that
    model has exactly one context setting and no default run; otherwise it counts with the default run."""
    groups: dict[tuple, list[UnitRecord]] = defaultdict(list)
    promptless: list[UnitRecord] = []
    seen: set[tuple] = set()
    for number, raw in enumerate(records, start=1):
        if not isinstance(raw, Mapping) or raw.get("kind") not in UNIT_KINDS:
            continue
        record = UnitRecord.from_json(raw, f"record {number}")
        key = (unit_key(record), _run_key(record))  # the same unit under another setting is another run's
        if key in seen:
            continue
        seen.add(key)
        if record.context is None and record.prompt_sha256 is None and not record.turns:
            promptless.append(record)
        else:
            groups[_run_key(record)].append(record)
    prompted = tuple(groups)
    for record in promptless:
        default = _run_key(record)
        others = [key for key in prompted if key[:2] == default[:2] and key != default]
        groups[others[0] if len(others) == 1 and default not in prompted else default].append(record)
    return tuple(prompt_summary(groups[key]) for key in sorted(groups, key=_sort_key))


def show_prompts(summaries: Sequence[PromptSummary]) -> bool:
    """Worth a report section: some run has a context, or some model reported a prompt size."""
    return any(summary.has_context or summary.sized for summary in summaries)


def setting_text(summary: PromptSummary) -> str:
    """E.g. ``localized context, budget 6000 (llamacpp/smollm2)``."""
    budget = f"budget {summary.budget}" if summary.budget is not None else "no budget"
    return f"{summary.policy} context, {budget} ({summary.tokenizer or 'sizes as the model reported'})"


def console_line(summary: PromptSummary) -> str:
    """One line for the summary after a run, e.g. ``prompts: localized context, budget 6000 (llamacpp/smollm2):
    median 5873, max 5999 tokens; 41 of 127 cut``."""
    if summary.sized:
        sizes = f"median {summary.median_tokens:.0f}, max {summary.max_tokens} tokens"
    else:
        sizes = "no prompt sizes recorded"
    return f"prompts: {setting_text(summary)}: {sizes}; {summary.cut} of {summary.sized} cut"


def console_lines(records: Sequence[Mapping[str, Any]]) -> list[str]:
    """The prompt lines of the runs whose records carry a context; none for default runs."""
    return [console_line(summary) for summary in prompt_runs(records) if summary.has_context]


def _run_key(record: UnitRecord) -> tuple:
    return (record.model, record.edit_format, *settings_of(record))


def _sort_key(key: tuple) -> tuple:
    model, edit_format, policy, budget, tokenizer = key
    return (model, policy, budget is not None, budget or 0, tokenizer or "", edit_format or "")

