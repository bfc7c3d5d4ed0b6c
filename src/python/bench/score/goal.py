"""The three steps of `./pants score` (``pants-plugins/bench_pants/score_goal.py``), each a cached process.

* **plan**: the units of a run over the given specs (``plan_units``, the same units `bench score` runs) and the
  repository files each task's units read besides the task's own (a scripted model's trajectory). Refused for
  a model whose provider does not declare itself deterministic: Pants would keep one draw of it as if it were
  the answer, so such runs belong to `bench score`.
* **unit**: one unit scored exactly as a `bench score` thread scores it. Its record lacks the run's context,
  the benchmark commit and the pool hash: they depend on the checkout and on the whole selection, not on the
  unit, and leaving them out is what lets a unit's cached record serve every commit and selection that leave
  its inputs unchanged.
* **merge**: the units' files into the folder `bench score` writes, through the same runner (an executor
  that hands over the finished units), so ``results.jsonl`` has the same bytes: the same records with the
  run's context added, in the same order, in the same canonical form.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Sequence

from bench.attempt import DEFAULT_EDIT_FORMAT
from bench.errors import UsageError
from bench.score.executor import ExecutionStats, Job, UnitDone
from bench.score.units import Unit

UNIT_FILE_VERSION = 1


def unit_name(unit: Unit) -> str:
    """``kind:condition:sample``: how the goal names one unit of a task on the command line."""
    return f"{unit.kind}:{unit.condition}:{unit.sample}"


def parse_unit_name(spec, model_id: str, name: str) -> Unit:
    parts = name.split(":")
    if len(parts) != 3 or not parts[2].isdigit():
        raise UsageError(f"unit {name!r} is not KIND:CONDITION:SAMPLE")
    return Unit(spec, model_id, parts[0], parts[1], int(parts[2]))


def require_deterministic(model_id: str) -> None:
    from bench.model.registry import declares_deterministic, get_model, known_providers, split_model_id

    if split_model_id(model_id)[0] not in known_providers():
        get_model(model_id)  # raises the registry's error, which names the known providers
    if not declares_deterministic(model_id):
        raise UsageError(f"{model_id} does not declare itself deterministic: Pants would cache one draw of it as "
                         f"the answer. Score it with `bench score --model {model_id}` instead")


def plan_document(plan) -> dict:
    """What the goal fans out: per task (by spec path), its unit names and the extra files its units read."""
    from bench.model.registry import get_model
    from bench.score.runner import plan_units

    require_deterministic(plan.model_id)
    model = get_model(plan.model_id, plan.params)
    inputs_for = getattr(model, "input_files", None)
    tasks: dict[str, dict] = {}
    for unit in plan_units(plan):
        path = Path(unit.spec.path).resolve().relative_to(plan.root.resolve()).as_posix()
        entry = tasks.setdefault(path, {
            "task_id": unit.spec.task_id, "units": [],
            "inputs": sorted(inputs_for(unit.spec.task_id)) if inputs_for else [],
        })
        entry["units"].append(unit_name(unit))
    return {"version": UNIT_FILE_VERSION, "model": plan.model_id, "unit_arguments": unit_arguments(plan),
            "tasks": [{"spec": path, **tasks[path]} for path in sorted(tasks)]}


def unit_arguments(plan) -> list[str]:
    """The settings that decide one unit's record, as `bench goal unit` options: nothing more, so that a unit's
    cached process serves every run that differs only in what else it runs (samples, conditions, tasks)."""
    params = plan.params
    args = ["--model", plan.model_id, "--turns", str(plan.turns), "--temperature", repr(params.temperature),
            "--seed", str(params.seed), "--max-tokens", str(params.max_tokens),
            "--timeout", repr(params.timeout_seconds)]
    optional = (("--reasoning-budget", params.reasoning_budget), ("--context-size", params.context_size),
                ("--thinking", None if params.thinking is None else ("on" if params.thinking else "off")),
                ("--controller", plan.controller_id))
    args += [part for flag, value in optional if value is not None for part in (flag, str(value))]
    args += ["--controller-stateful"] * plan.controller_stateful + ["--no-cache"] * (not plan.use_cache)
    args += ["--feed-divergences"] * plan.feed_divergences
    if plan.edit_format != DEFAULT_EDIT_FORMAT:
        args += ["--edit-format", plan.edit_format]
    if not plan.context.is_default:
        context = plan.context
        args += ["--context", context.policy, "--tokenizer", context.tokenizer]
        args += ["--context-budget", str(context.budget)] if context.budget is not None else []
    return args


def score_unit(plan, unit: Unit) -> dict:
    """The unit run by the local executor on one thread, as a document the merge step takes back: the record
    only. The unit's detail for `bench view` (diffs and test messages, which quote the task's library) is left
    out, so a shared cache holds records and certificates, never third-party source."""
    from bench.score.executor import LocalExecutor

    finished: list[UnitDone] = []
    LocalExecutor(1).run(Job(replace(plan, specs=()), {}, "pants-score"), [unit], finished.append)
    done = finished[0]
    return {"version": UNIT_FILE_VERSION, "unit": unit_name(done.unit), "task_id": done.unit.spec.task_id,
            "record": done.record.to_json()}


@dataclass(frozen=True)
class _FinishedUnits:
    """An executor whose units already ran (in the goal's unit processes): it hands each one over, with the
    run's context added to its record as a thread of `bench score` would have made it."""

    documents: dict

    name = "pants"

    def run(self, job: Job, units: Sequence[Unit], deliver) -> ExecutionStats:
        from bench.loop.records import UnitRecord

        for unit in units:
            key = (unit.spec.task_id, unit_name(unit))
            record = UnitRecord.from_json(self.documents[key]["record"], "unit {1} of {0}".format(*key))
            integrity = tuple({**dict(record.integrity), **job.benchmark}.items())
            deliver(UnitDone(unit, replace(record, integrity=integrity), {"unit": list(unit.key)}))
        return ExecutionStats(self.name, (("pants", len(units)),) if units else ())


def read_unit_files(paths: Sequence[Path]) -> dict:
    documents = {}
    for path in paths:
        document = json.loads(Path(path).read_text(encoding="utf-8"))
        if document.get("version") != UNIT_FILE_VERSION:
            raise UsageError(f"{path}: not a unit file of this harness (version {document.get('version')!r})")
        documents[(document["task_id"], document["unit"])] = document
    return documents


def merge(plan, unit_files: Sequence[Path]):
    """Write the run folder ``plan.out_dir`` from the units' files; returns the runner's RunResult."""
    from bench.score.runner import plan_units, run

    if plan.out_dir.exists() and any(plan.out_dir.iterdir()):
        raise UsageError(f"{plan.out_dir} is not empty: the merge writes a new run folder")
    documents = read_unit_files(unit_files)
    missing = [f"{unit_name(u)} of {u.spec.task_id}" for u in plan_units(plan)
               if (u.spec.task_id, unit_name(u)) not in documents]
    if missing:  # checked before the folder is made: a refused merge leaves nothing behind
        raise UsageError(f"no finished unit {missing[0]} was given to merge ({len(missing)} missing)")
    return run(plan, executor=_FinishedUnits(documents))
