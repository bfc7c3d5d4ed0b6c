"""`./pants score --model=M [--turns=K --both-conditions ...] <task targets>`: scoring as cached processes.

Three steps, each `bench goal ...` run from the harness PEX (bench.score.goal says what each does):
one plan process lists the units of every task; one process per (task, unit) scores it, its inputs exactly
what decides its record (the harness, the spec, the lock, the image's pin, the certificate, the task's data,
the files the model reads for that task, the unit's settings); one merge process writes the run folder
`bench score` writes for the same run, `results.jsonl` byte for byte. Pants keys each process by the digest
of its inputs, locally and in a remote cache when one is configured: with nothing changed no unit runs, a
changed lock re-scores exactly the tasks that use it, a changed harness re-scores everything. Only models whose
provider declares itself deterministic are taken (the plan step refuses the others, naming `bench score`).
"""

import json

from pants.backend.python.util_rules.pex import PexProcess
from pants.engine.console import Console
from pants.engine.fs import AddPrefix, Digest, MergeDigests, PathGlobs, Workspace
from pants.engine.goal import Goal, GoalSubsystem
from pants.engine.internals.selectors import Get, MultiGet
from pants.engine.internals.session import RunId
from pants.engine.process import FallibleProcessResult, ProcessResult
from pants.engine.rules import collect_rules, goal_rule
from pants.engine.target import Targets
from pants.option.option_types import BoolOption, FloatOption, IntOption, StrOption
from pants.util.logging import LogLevel
from pants.vcs.git import GitWorktreeRequest, MaybeGitWorktree

from bench_pants.harness import (
    HarnessPex, HarnessPexRequest, TaskInputs, TaskInputsRequest, process_env, ran_or_cached,
)
from bench_pants.targets import TaskSpecField

# Read by every step: the checkout marker, the integrity allowances, the lock sdists are built with.
SHARED = ["pants.toml", "tasks/_integrity/allowances.json", "lockfiles/tools/sdist-build.lock"]
# The plan step builds the model to ask which files it reads (a scripted model needs its study's folder).
PLAN_ONLY = ["tasks/synthetic/_scripted/**"]


class ScoreSubsystem(GoalSubsystem):
    name = "score"
    help = ("Score a deterministic model on benchmark tasks, each unit a process cached by the content of its "
            "inputs; writes the folder `bench score` writes (results.jsonl byte for byte).")
    model = StrOption(default=None, help="provider/name of a deterministic model (scripted, repairer, ...).")
    turns = IntOption(default=None, help="Repair-loop budget K (default: single attempt; the scripted study: 5).")
    condition = StrOption(default="full", help="Repair-loop feedback: full or count-only.")
    both_conditions = BoolOption(default=False, help="Run the full and count-only conditions.")
    resample = BoolOption(default=False, help="Also best-of-K independent draws (no feedback).")
    samples = IntOption(default=1, help="Independent draws per task.")
    temperature = FloatOption(default=0.0, help="Sampling temperature sent to the model.")
    seed = IntOption(default=0, help="Sampling seed sent to the model.")
    max_tokens = IntOption(default=2048, help="Most tokens per reply.")
    out = StrOption(default=None, help="Run folder to write (default: results/runs/<model>/pants); replaced.")
    report = BoolOption(default=True, help="Build the report.")


class Score(Goal):
    subsystem_cls = ScoreSubsystem
    environment_behavior = Goal.EnvironmentBehavior.LOCAL_ONLY


def _settings(subsystem: ScoreSubsystem) -> list:
    args = ["--model", subsystem.model, "--condition", subsystem.condition, "--samples", str(subsystem.samples),
            "--temperature", repr(subsystem.temperature), "--seed", str(subsystem.seed),
            "--max-tokens", str(subsystem.max_tokens)]
    if subsystem.turns is not None:
        args += ["--turns", str(subsystem.turns)]
    return args + ["--both-conditions"] * subsystem.both_conditions + ["--resample"] * subsystem.resample


@goal_rule
async def score(
    console: Console, workspace: Workspace, targets: Targets, subsystem: ScoreSubsystem, run_id: RunId,
) -> Score:
    tasks = {t[TaskSpecField].file_path: t for t in targets if t.has_field(TaskSpecField)}
    if not subsystem.model:
        console.print_stderr("./pants score needs --model=provider/name (a deterministic model).")
        return Score(exit_code=2)
    if not tasks:
        console.print_stderr("No bench_task targets matched.")
        return Score(exit_code=0)
    harness = await Get(HarnessPex, HarnessPexRequest())
    env, settings, specs = process_env(), _settings(subsystem), sorted(tasks)
    shared = await Get(Digest, PathGlobs(SHARED))
    plan_inputs = await Get(Digest, PathGlobs([*SHARED, *PLAN_ONLY, *specs]))
    planned = await Get(FallibleProcessResult, PexProcess(
        harness.pex, argv=["goal", "plan", *settings, *specs], input_digest=plan_inputs, extra_env=env,
        description=f"plan the units of {len(specs)} tasks", level=LogLevel.DEBUG,
    ))
    if planned.exit_code != 0:
        console.print_stderr(planned.stderr.decode(errors="replace").strip())
        return Score(exit_code=planned.exit_code)
    plan = json.loads(planned.stdout)
    out = subsystem.out or f"results/runs/{plan['model'].replace('/', '-')}/pants"
    if _not_a_run_folder(out):
        console.print_stderr(f"{out} exists and is not a run folder (no run.json): choose another --score-out.")
        return Score(exit_code=2)
    units = [(task, name) for task in plan["tasks"] for name in task["units"]]
    own = await MultiGet(
        Get(TaskInputs, TaskInputsRequest(tasks[task["spec"]], tuple(task["inputs"]))) for task in plan["tasks"]
    )
    certificates = await MultiGet(Get(Digest, PathGlobs(_committed(t))) for t in plan["tasks"])
    digests = await MultiGet(
        Get(Digest, MergeDigests([shared, o.digest, c])) for o, c in zip(own, certificates)
    )
    inputs = {task["spec"]: digest for task, digest in zip(plan["tasks"], digests)}
    results = await MultiGet(
        Get(ProcessResult, PexProcess(
            harness.pex,
            argv=["goal", "unit", *plan["unit_arguments"], "--spec", task["spec"], "--unit", name,
                  "--out", "unit.json"],
            input_digest=inputs[task["spec"]], extra_env=env, output_files=["unit.json"],
            description=f"score {task['task_id']} {name}", level=LogLevel.INFO,
        ))
        for task, name in units
    )
    counts: dict = {}
    for (task, name), result in zip(units, results):
        how = ran_or_cached(result, run_id)
        counts[how] = counts.get(how, 0) + 1
        console.print_stderr(f"{'scored' if how == 'ran' else how:<7} {task['task_id']} {name}")
    unit_files = await MultiGet(
        Get(Digest, AddPrefix(r.output_digest, f"units/{i}")) for i, r in enumerate(results)
    )
    merge_inputs = await Get(Digest, MergeDigests([plan_inputs, *unit_files]))
    worktree = await Get(MaybeGitWorktree, GitWorktreeRequest())
    merged = await Get(FallibleProcessResult, PexProcess(
        harness.pex,
        argv=["goal", "merge", *settings, "--commit", _commit(worktree), "--out", out, "--spec", *specs,
              "--units", *(f"units/{i}/unit.json" for i in range(len(results))),
              *([] if subsystem.report else ["--no-report"])],
        input_digest=merge_inputs, extra_env=env, output_directories=[out],
        description=f"merge {len(results)} units", level=LogLevel.DEBUG,
    ))
    console.print_stdout(merged.stdout.decode(errors="replace").rstrip())
    console.print_stderr(merged.stderr.decode(errors="replace").rstrip())
    if merged.exit_code in (0, 3):  # 3: some unit hit an infrastructure error; the folder is still the run's
        _clear_run_folder(out)
        workspace.write_digest(merged.output_digest)  # the folder at its place in the checkout
    console.print_stderr("units: " + ", ".join(f"{counts.get(k, 0)} {k}" for k in ("ran", "cached", "remote")))
    return Score(exit_code=merged.exit_code)


def _folder(out: str):
    from pants.base.build_root import BuildRoot

    return BuildRoot().pathlib_path / out


def _not_a_run_folder(out: str) -> bool:
    folder = _folder(out)
    return folder.exists() and not (folder / "run.json").is_file()


def _clear_run_folder(out: str) -> None:
    """The goal writes a whole run folder: files of an earlier run there (a task no longer selected) go first.
    Only a run folder is removed (it holds run.json), never a folder of something else."""
    import shutil

    if _folder(out).exists():
        shutil.rmtree(_folder(out))


def _committed(task: dict) -> list[str]:
    """What a unit grades against when it is current: the task's certificate (with, for a task whose code is in
    the checkout, the inputs it was made from) and its committed probe summary and set (bench.probes.committed).
    A file that does not exist is simply absent from the unit's inputs."""
    task_id = task["task_id"]
    return [f"results/certificates/{task_id}.json.gz", f"results/certificates/inputs/{task_id}.json",
            f"results/probes/{task_id}.json", f"results/probes/sets/{task_id}.json.gz"]


def _commit(worktree: MaybeGitWorktree) -> str:
    return worktree.git_worktree.commit_id if worktree.git_worktree is not None else ""


def rules():
    return collect_rules()
