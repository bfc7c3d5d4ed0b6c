"""`bench lock TASK`: resolve a task's test dependencies at base (in the sandbox) into its hash-pinned lock."""

from __future__ import annotations

import argparse
from pathlib import Path

EPILOG = """examples:
  bench lock click-2345 --mirror /mirrors/pallets+click
  bench lock synthetic.interval_merge        (synthetic tasks share lockfiles/tasks/synthetic.lock)
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("lock", help="regenerate a task's lockfile", epilog=EPILOG,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("task", help="task id")
    p.add_argument("--sandbox", default=None, help="sandbox backend: bwrap (default, or $BENCH_SANDBOX) or docker")
    p.add_argument("--mirror", type=Path, default=None,
                   help="a local bare git mirror of the task's repository (else $BENCH_MIRROR_DIR, else a clone)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from bench.errors import UsageError
    from bench.spec.kind_registry import get_kind
    from bench.spec.load import discover, load_all
    from bench.variables import find_root, get

    root = find_root()
    specs = {s.task_id: s for s in load_all(discover(root))}
    if args.task not in specs:
        raise UsageError(f"no task {args.task!r}")
    spec = specs[args.task]
    path = get_kind(spec.kind).lock(spec, root, sandbox_name=args.sandbox or get("BENCH_SANDBOX"), mirror=args.mirror)
    print(path)
    return 0
