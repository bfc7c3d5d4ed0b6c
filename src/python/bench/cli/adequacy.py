"""`bench adequacy [SELECTOR]`: would each certified task's tests catch a near miss of its fix?"""

from __future__ import annotations

import argparse
from pathlib import Path

EPILOG = """examples:
  bench adequacy click-2972               near misses of the fix run against the task's tests (cached)
  bench adequacy 'lib:toolz' --no-cache   run them again
A near miss is the fixed code with one more single-site mutation (the mutation engine's operators) inside the
function(s) enclosing the lines the fix changed (a mutation task: the injected span); at most 24 per task, by
a seeded choice. Each runs the task's tests once in its certified environment: killed when a fail_to_pass or
pass_to_pass test does not pass, survived otherwise. One line per task: made, run, killed, and each survivor
by file, operator, line and byte span (no code). Results are written to results/adequacy/<task_id>.json,
bound to the certificate they were measured under (its sha256): bench pool stats, bench list and bench report
read one only while that certificate is the task's.
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("adequacy", help="per-task test adequacy: near misses of the fix the tests catch",
                       epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("selector", help="task selector")
    p.add_argument("--sandbox", default=None, help="sandbox backend (default $BENCH_SANDBOX or bwrap)")
    p.add_argument("--mirror", type=Path, default=None, help="a local bare git mirror of the task's repo")
    p.add_argument("--no-cache", action="store_true", help="run the near misses even when a result is cached")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from bench.cli._per_task import each_task, selected
    from bench.gate import adequacy_store
    from bench.gate.adequacy import adequacy
    from bench.variables import get

    root, specs = selected(args.selector)

    def measure(spec):
        result = adequacy(spec, root, sandbox_name=args.sandbox or get("BENCH_SANDBOX"), mirror=args.mirror,
                          use_cache=not args.no_cache)
        adequacy_store.write(root, result)
        return result

    return each_task(specs, measure, _line, what="measured")


def _line(result) -> str:
    score = "n/a" if result.score is None else f"{result.score:.2f}"
    survivors = " ".join(f"{s.file}:{s.lineno}:{s.operator}@{s.start}-{s.end}" for s in result.survivors)
    return f"made {result.made}\trun {result.run}\tkilled {result.killed}\tadequacy {score}\t{survivors or result.note}"
