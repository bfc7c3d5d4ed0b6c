"""`bench check TASK < edit`: judge an edit from any worker: SOLVED | FAILED | TAMPERED | NO_EDIT_APPLIED.

SOLVED means resolved: every fail_to_pass test passes and no pass_to_pass test breaks. A resolved edit then
replays the task's probe set (the verified tier): the line under SOLVED says whether it is verified, and names
the first probe that diverges from the reference when it is not (the exit code is the resolved verdict's). For anything else the
failing tests are printed with their messages exactly as the built-in repair loop's full feedback gives them
to a model, so a loop of one's own can be built on `bench prompt` + `bench check`. The task's workspace is
kept between calls (under the cache), so repeated checks skip all set-up and only copy the pristine tree,
apply the edit and run the tests in the sandbox.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

EPILOG = """examples:
  bench prompt synthetic.interval_merge > prompt.txt
  my-agent < prompt.txt | bench check synthetic.interval_merge
  bench check synthetic.interval_merge --diff < fix.patch      a unified diff instead of SEARCH/REPLACE
  bench prompt TASK --edit-format function | my-agent | bench check TASK --edit-format function
Exit 0 when SOLVED (resolved), 1 when FAILED, TAMPERED or NO_EDIT_APPLIED. --json adds the outcome, the
failing tests with their messages, the feedback text and the verified tier (verified, verification, probes,
divergence).
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("check", help="judge an edit read from stdin", epilog=EPILOG,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    add_task_arguments(p, format_help="how stdin is written: SEARCH/REPLACE blocks (default), whole functions, "
                                      "a unified diff")
    p.add_argument("--diff", action="store_true", help="stdin is a unified diff (as --edit-format diff)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("--no-verify", action="store_true",
                   help="leave out the verified tier (the probe replay a resolved edit gets)")
    p.set_defaults(run=run)


def add_task_arguments(p: argparse.ArgumentParser, *, format_help: str) -> None:
    """What `bench prompt` and `bench check` share: the task, its answer format, where it is prepared."""
    from bench.attempt import EDIT_FORMATS

    p.add_argument("task", help="task id")
    p.add_argument("--edit-format", choices=EDIT_FORMATS, default=EDIT_FORMATS[0], help=format_help)
    p.add_argument("--sandbox", default=None, help="sandbox backend: bwrap (default, or $BENCH_SANDBOX) or docker")
    p.add_argument("--mirror", default=None,
                   help="a local bare git mirror of the task's repository (else $BENCH_MIRROR_DIR, else a clone)")


def persistent_task(args):
    from bench.errors import UsageError
    from bench.score.task_env import prepare_task
    from bench.spec.load import discover, load_all
    from bench.variables import cache_dir, find_root, get

    root = find_root()
    specs = {s.task_id: s for s in load_all(discover(root))}
    if args.task not in specs:
        raise UsageError(f"no task {args.task!r} (see `bench list`)")
    return prepare_task(specs[args.task], root, cache_dir() / "workspaces",
                        sandbox_name=args.sandbox or get("BENCH_SANDBOX"),
                        mirror=Path(args.mirror) if args.mirror else None, reuse=True)


def run(args: argparse.Namespace) -> int:
    import shutil

    from bench.errors import EditError
    from bench.sandbox.cleanup import tree_scratch
    from bench.score.evaluate import apply_reply, clean_text, full_feedback, judge, source_snapshot, verify_resolved

    if sys.stdin.isatty():
        from bench.errors import UsageError

        raise UsageError("bench check reads the edit from stdin: pipe it in, e.g. `my-agent < prompt.txt | "
                         f"bench check {args.task}` or `bench check {args.task} < edit.txt`")
    task = persistent_task(args)
    text = sys.stdin.read()
    with tree_scratch(task.pristine, "bench-check-") as scratch:
        tree = Path(scratch) / "tree"
        shutil.copytree(task.pristine, tree, symlinks=True)
        try:
            apply_reply(tree, text, task.spec.source_files, "diff" if args.diff else args.edit_format)
        except EditError as exc:
            return _report(args, "NO_EDIT_APPLIED", {"reason": exc.reason, "detail": str(exc)})
        sources = source_snapshot(tree, task.spec.source_files)
        verdict = judge(task, tree, sources, fresh_copy=False)
    verification = None if args.no_verify else verify_resolved(task, verdict, sources)
    status = "SOLVED" if verdict.resolved else ("TAMPERED" if verdict.outcome == "tampered" else "FAILED")
    return _report(args, status, {
        "outcome": verdict.outcome, "resolved": verdict.resolved, "reason": verdict.reason,
        **({} if verification is None else {"verified": verification.verified, "verification": verification.status,
                                             "probes": verification.checked, "divergence": verification.divergence}),
        "still_failing": list(verdict.still_failing), "pass_to_pass_broken": list(verdict.pass_to_pass_broken),
        "failures": [{"test": test, "outcome": outcome, "message": message, "detail": clean_text(detail)}
                     for test, outcome, message, detail in verdict.failures],
        "feedback": "" if verdict.resolved else full_feedback(verdict, verdict.failures)})


def _tier(details: dict) -> str:
    """What the verified tier said of a resolved edit (the line under SOLVED)."""
    status = details["verification"]
    if status == "verified":
        return f"verified ({details['probes']} probes answered as the reference does)"
    if status == "diverged":
        return "not verified (a probe diverges from the reference: see divergence)"
    return "not verified (the task has no probes)"


def _report(args, status: str, details: dict) -> int:
    import json

    if args.json:
        print(json.dumps({"status": status, **details}, sort_keys=True))
    else:
        print(status)
        if details.get("verification"):
            print(f"  verified tier: {_tier(details)}")
        for key in ("reason", "detail", "divergence", "still_failing", "pass_to_pass_broken"):
            value = details.get(key)
            if value:
                print(f"  {key}: {value if not isinstance(value, list) else ', '.join(value)}")
        if details.get("feedback"):
            print()
            print(details["feedback"])
    return 0 if status == "SOLVED" else 1
