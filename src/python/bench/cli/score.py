"""`bench score`: score a model on certified tasks — single attempts, samples, or repair loops."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from bench.cli.predictions import PREDICTIONS_EPILOG

EPILOG = """examples:
  bench score --model scripted                 the deterministic convergence study (both conditions, 5 turns,
                                               every synthetic task) → results/runs/scripted-study/<UTC time>/
  bench score --model scripted --update-reference    regenerate the committed results/study/scripted-study/
  bench score --model repairer --turns 5 --both-conditions --tasks kind:synthetic
  bench score --model openai/gpt-5-mini --tasks lib:click --samples 5 --workers 4
  bench score --model llamacpp/smollm2 --turns 4 --both-conditions --resample
  bench score --predictions preds.jsonl        score SWE-bench-style predictions (instance_id, model_patch)
  bench score --model repairer --tasks kind:mutation --cluster tcp://10.0.0.5:8786
                                               the same units on a Dask cluster (docs/scaling.md)
Runs go to a new results/runs/<model>/<UTC time>/ (ignored by git) unless --out, --name or --update-reference
says otherwise; <model> is the model's id made a safe folder name: every run of characters other than letters,
digits, '.', '_' and '-' becomes one '-' (ollama/llama3:8b → ollama-llama3-8b). --out is refused (exit 2) on a
committed reference (results/study/, results/recorded/) unless --update-reference, and on a folder holding
another run's results (other settings or tasks, no run.json) unless --no-resume. A run resumes by default: units
already in <out>/records.jsonl are skipped (--no-resume starts over); infrastructure errors are retried only with
--retry-errors. Writes results.jsonl, run.json, summary.json and report/ (its path printed as `report: …`).
Exit 3 when any unit hit an infrastructure error (each distinct reason is printed, with the command that runs
them again). --condition, --both-conditions, --resample and --controller shape repair loops: without --turns
(a single attempt) they are refused; the scripted study's 5 turns count as given.
Outcomes: resolved (the headline: every fail_to_pass test passes and no pass_to_pass test breaks), solved
(targets pass, guards ignored), model_miss, tampered (the edit tried to influence its verdict; the rule that
fired is the record's reason; see docs/verdict-integrity.md), invalid_edit, model_timeout, and
infrastructure_error (not in the denominator). A repair loop converges on a resolved turn.
""" + PREDICTIONS_EPILOG

STUDY_DEFAULTS = {"turns": 5, "conditions": ("full", "count-only"), "tasks": "kind:synthetic"}
DEFAULT_NAMES = {"scripted": "study", "repairer": "ast"}


def default_workers() -> int:
    """One thread more than the cores: between its sandboxed runs a unit's thread does host work (edits, git,
    grading) while the cores could run another unit's tests. The scripted study on two cores took 66 s with 2
    threads, 50 s with 3, 59-65 s with 4 and 72 s with 6 (docs/measurements/README.md); results are the same."""
    from bench.score.spare_core import cores

    return cores() + 1


def add_parser(sub: argparse._SubParsersAction) -> None:
    from bench.cli import run_folder

    p = sub.add_parser("score", help="score a model", epilog=EPILOG,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", help="provider/name, e.g. scripted, repairer/ast, openai/gpt-5-mini")
    p.add_argument("--tasks", default=None, help="task selector (default: every task; the study: kind:synthetic)")
    p.add_argument("--samples", type=int, default=1, help="independent draws per task (pass@k)")
    p.add_argument("--workers", type=int, default=default_workers(),
                   help="threads in this process (without --cluster; default: one more than the cores, here "
                        "%(default)s)")
    p.add_argument("--cluster", default=None, metavar="tcp://HOST:8786",
                   help="run the units on this Dask scheduler's workers (default: $BENCH_CLUSTER; empty: here)")
    run_folder.add_arguments(p)
    add_settings_arguments(p)
    p.add_argument("--no-resume", action="store_true", help="discard earlier records in --out")
    p.add_argument("--retry-errors", action="store_true", help="re-run units recorded as infrastructure_error")
    p.add_argument("--no-cache", action="store_true", help="do not reuse cached verdicts")
    p.add_argument("--no-report", action="store_true", help="do not build the report")
    p.add_argument("--no-preflight", action="store_true",
                   help="skip the checks before the run (endpoint reachable and taking the key, PR sources)")
    p.add_argument("--sandbox", default=None, help="bwrap (default) or docker")
    p.add_argument("--mirror", type=Path, default=None, help="local git mirror for PR tasks")
    p.add_argument("--predictions", type=Path, default=None,
                   help="JSONL of {instance_id, model_patch[, model_name_or_path]}, one line per instance "
                        "(default folder: results/runs/predictions-<file stem>/latest/)")
    p.set_defaults(run=run)


def add_settings_arguments(p: argparse.ArgumentParser) -> None:
    """What decides a run's records besides its tasks; `bench goal` (what `./pants score` runs) takes the same."""
    from bench.attempt import EDIT_FORMATS

    p.add_argument("--turns", type=int, default=None, help="repair-loop budget K (default: single attempt)")
    p.add_argument("--condition", choices=("full", "count-only"), default=None,
                   help="repair-loop feedback (needs --turns): the failing tests' output (full, the default) or "
                        "only how many fail")
    p.add_argument("--both-conditions", action="store_true",
                   help="run the full and count-only conditions (needs --turns)")
    p.add_argument("--resample", action="store_true",
                   help="also best-of-K independent draws (no feedback; needs --turns K)")
    p.add_argument("--feed-divergences", action="store_true",
                   help="a resolved turn the verified tier finds diverging is fed back (full: the first "
                        "divergence; count-only: how many) and the loop goes on (needs --turns; recorded in "
                        "run.json and each record); by default the probes stay hidden")
    p.add_argument("--controller", default=None,
                   help="a model that returns guidance (never code) each turn of a repair loop (needs --turns)")
    p.add_argument("--controller-stateful", action="store_true", help="the controller sees the whole trajectory")
    p.add_argument("--temperature", type=float, default=0.0, help="sampling temperature sent to the model (default 0)")
    p.add_argument("--seed", type=int, default=0,
                   help="sampling seed sent to the model, where it takes one (default 0)")
    p.add_argument("--max-tokens", type=int, default=2048, help="most tokens per reply (default 2048)")
    p.add_argument("--reasoning-budget", type=int, default=None, help="thinking tokens for models that take a budget")
    p.add_argument("--context-size", type=int, default=None,
                   help="context window for local models (llama.cpp); longer prompts are model_timeout")
    p.add_argument("--thinking", choices=("on", "off"), default=None,
                   help="turn a model's thinking mode on or off where it has one")
    p.add_argument("--timeout", type=float, default=120.0, help="seconds per model call")
    p.add_argument("--edit-format", choices=EDIT_FORMATS, default=EDIT_FORMATS[0],
                   help="how the model is asked to answer: SEARCH/REPLACE blocks (default), whole functions "
                        "or classes spliced by AST (for small models), or a unified diff")
    add_context_arguments(p, tokenizer_default="the model's own where the harness can run it (llamacpp/...), "
                                               "else estimate")


def add_context_arguments(p: argparse.ArgumentParser, *, tokenizer_default: str) -> None:
    """--context, --context-budget, --tokenizer: what code a prompt shows and how many tokens it may take."""
    from bench.attempt.context import CONTEXT_POLICIES

    p.add_argument("--context", choices=CONTEXT_POLICIES, default=CONTEXT_POLICIES[0],
                   help="what code the prompt shows: the editable files whole (files, default), the code the "
                        "failing tests reach with an outline of the rest (localized), or the repository's code "
                        "ranked by BM25 against the failing tests (retrieval)")
    p.add_argument("--context-budget", type=int, default=None, metavar="TOKENS",
                   help="most tokens of the whole prompt; blocks of code that do not fit are left out")
    p.add_argument("--tokenizer", default=None,
                   help=f"what --context-budget counts: estimate (2.4 bytes a token) or llamacpp/<gguf or smollm2> "
                        f"(default: {tokenizer_default})")


def context_settings(args: argparse.Namespace, model_id: str | None = None):
    from bench.attempt.context import ContextSettings
    from bench.model.tokenizers import tokenizer_for_model

    return ContextSettings(args.context, args.context_budget, args.tokenizer or tokenizer_for_model(model_id))


def run(args: argparse.Namespace) -> int:
    if args.predictions:
        from bench.cli.predictions import score_predictions

        return score_predictions(args)
    from bench.errors import UsageError

    model_id, turns, conditions, selector = resolve_settings(args, strict=True)
    if args.samples < 1 or args.workers < 1:
        raise UsageError("--samples, --workers and --turns must be positive")
    return _run(args, model_id, turns, conditions, selector)


def resolve_settings(args: argparse.Namespace, *, strict: bool = False) -> tuple[str, int, tuple[str, ...], str | None]:
    """(model id, turns, conditions, task selector) as the options and the study's defaults decide them. With
    ``strict`` (`bench score`), options that would be ignored are refused and a --condition given to the study
    is the one run; `bench goal` (what `./pants score` runs, passing --condition always) keeps them lenient."""
    from bench.errors import UsageError

    if not args.model:
        raise UsageError("--model is required (e.g. --model scripted)")
    model_id = args.model if "/" in args.model else f"{args.model}/{DEFAULT_NAMES.get(args.model, args.model)}"
    study = model_id.startswith("scripted/") and args.turns is None
    turns = STUDY_DEFAULTS["turns"] if study else (args.turns or 0)
    if turns < 0:
        raise UsageError("--samples, --workers and --turns must be positive")
    if strict:
        _refuse_ignored(args, turns)
    if args.both_conditions or (study and not (strict and args.condition)):
        conditions = STUDY_DEFAULTS["conditions"]
    else:
        conditions = (args.condition or "full",)
    selector = getattr(args, "tasks", None)
    return model_id, turns, tuple(conditions), selector or (STUDY_DEFAULTS["tasks"] if study else None)


def _refuse_ignored(args: argparse.Namespace, turns: int) -> None:
    from bench.errors import UsageError

    if args.both_conditions and args.condition:
        raise UsageError("--condition and --both-conditions contradict each other; give one of them")
    loop_only = [flag for flag, given in (("--condition", args.condition), ("--both-conditions", args.both_conditions),
                                          ("--resample", args.resample), ("--controller", args.controller),
                                          ("--feed-divergences", args.feed_divergences),
                                          ("--controller-stateful", args.controller_stateful)) if given]
    if turns == 0 and loop_only:
        raise UsageError(f"{', '.join(loop_only)} shape{'s' * (len(loop_only) == 1)} repair loops, and without "
                         "--turns K this run is a single attempt: add --turns K, or leave them out")


def model_params(args: argparse.Namespace):
    from bench.model.protocol import ModelParams

    return ModelParams(temperature=args.temperature, seed=args.seed, max_tokens=args.max_tokens,
                       reasoning_budget=args.reasoning_budget, context_size=args.context_size,
                       thinking=None if args.thinking is None else args.thinking == "on",
                       timeout_seconds=args.timeout)


def _run(args, model_id: str, turns: int, conditions, selector) -> int:
    import shutil
    import time

    from bench.cli.run_folder import (again_command, check_destination, folder_slug, removed_if_refused,
                                      resume_hint, run_folder)
    from bench.progress import Bar
    from bench.score.runner import RunPlan, run, run_settings
    from bench.spec.load import discover, load_all, select
    from bench.variables import find_root, get

    root = find_root()
    specs = select(load_all(discover(root)), selector)
    print(f"{len(specs)} tasks selected by {selector!r}" if selector else
          f"no --tasks given: every task of the pool, {len(specs)} tasks", file=sys.stderr)
    out = run_folder(root, folder_slug(model_id), out=args.out, name=args.name, reference=args.update_reference)
    params = model_params(args)
    plan = RunPlan(model_id=model_id, specs=specs, out_dir=out, root=root, params=params, samples=args.samples,
                   turns=turns, conditions=tuple(conditions), resample=args.resample, workers=args.workers,
                   sandbox_name=args.sandbox or get("BENCH_SANDBOX"), mirror=args.mirror,
                   controller_id=args.controller, controller_stateful=args.controller_stateful,
                   use_cache=not args.no_cache, retry_errors=args.retry_errors,
                   cluster=get("BENCH_CLUSTER") if args.cluster is None else args.cluster,
                   edit_format=args.edit_format, context=context_settings(args, model_id), selection=selector,
                   feed_divergences=args.feed_divergences)
    check_destination(root, out, run_settings(plan), {s.task_id for s in specs}, reference=args.update_reference,
                      discard=args.no_resume)
    if args.no_resume and out.exists():
        shutil.rmtree(out)
    from bench.score.preflight import check_endpoint, check_model_covers, check_sources
    from bench.score.runner import plan_units

    check_model_covers(model_id, params, specs)
    if not args.no_preflight:
        check_endpoint(model_id, params)
        if not plan.cluster:
            check_sources(specs, args.mirror)
    bar = Bar(len(plan_units(plan)), desc=f"score {model_id}")
    started = time.monotonic()
    with removed_if_refused(out), resume_hint(out, again_command(args, out)):
        result = run(plan, on_start=bar.skip,
                     on_done=lambda done: bar.update(1, last=(done.convergence_class or done.outcome).value))
    bar.close()
    if plan.cluster and result.execution is not None:
        for line in result.execution.lines():
            print(line, file=sys.stderr)
    from bench.cli.run_folder import conclude_run

    return conclude_run(result, out, model_id, report=not args.no_report, wall_seconds=time.monotonic() - started,
                        again=again_command(args, out, add=("--retry-errors",)))

