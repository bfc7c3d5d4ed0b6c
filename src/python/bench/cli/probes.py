"""`bench probes SELECTOR`: each task's probe set for the verified tier, and what it makes of the near misses."""

from __future__ import annotations

import argparse
from pathlib import Path

EPILOG = """examples:
  bench probes synthetic.caesar_shift      build (or read from the cache) the task's probe set and summarise it
  bench probes 'kind:mutation' --no-near-misses
A probe set holds inputs of the functions the task's reference change touches: the calls its certified tests
make (recorded in the sandbox under the reference) and calls generated around them with Hypothesis, each with
the reference's output (replayed twice in a fresh sandbox; an input answered differently, or not written
faithfully, is dropped and counted). A call whose arguments cannot all be written (an object of a class a
test defines, a context, a callback) is probed in place: the tests run again and, at that call, one forked
child calls the function once per input with the live arguments, the written ones varied ("in place" in the
counts).
Scoring replays it against every resolved candidate: the verified tier.
The set is cached, and committed only for a task whose code lives in this repository (a synthetic task:
results/probes/sets/<task_id>.json.gz; a library's set holds values from its tests); its summary is written to
results/probes/<task_id>.json, bound to the task's certificate: the set's sha256, counts per target, and —
when the task's adequacy was measured (bench adequacy) — which near misses the tests let through the probes
kill, and which are equivalent on probes. bench pool stats and bench list --json read it.
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("probes", help="per-task probe sets of the verified tier, and the near misses they kill",
                       epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("selector", help="task selector")
    p.add_argument("--sandbox", default=None, help="sandbox backend (default $BENCH_SANDBOX or bwrap)")
    p.add_argument("--mirror", type=Path, default=None, help="a local bare git mirror of the task's repo")
    p.add_argument("--no-cache", action="store_true", help="build the probe sets even when one is cached")
    p.add_argument("--no-near-misses", action="store_true", help="leave the adequacy survivors out")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    import tempfile

    from bench.cli._per_task import each_task, selected
    from bench.probes import store
    from bench.score.probe_sets import commit_set, probe_set_for, summary_for
    from bench.score.task_env import prepare_task
    from bench.variables import get

    root, specs = selected(args.selector)

    def measure(spec):
        with tempfile.TemporaryDirectory(prefix="bench-probes-") as scratch:
            task = prepare_task(spec, root, Path(scratch), sandbox_name=args.sandbox or get("BENCH_SANDBOX"),
                                mirror=args.mirror)
            if args.no_cache:
                probe_set_for(task, use_cache=False)
            summary = summary_for(task, root, near_misses=not args.no_near_misses)
            commit_set(task, root)
        store.write(root, summary)
        return summary

    return each_task(specs, measure, line, what="probed")


def line(summary) -> str:
    text = f"probes {summary.probes} (observed {summary.observed}, generated {summary.generated}, " \
           f"in place {summary.in_place})"
    if not summary.probes:
        text += f"\t{summary.note}"
    near = summary.near_misses
    if near is not None:
        text += f"\tnear-miss survivors {near.survivors}: killed by probes {len(near.killed)}, equivalent on probes " \
                f"{len(near.equivalent)}"
    return text
