"""`bench certify [SELECTOR]`: run the gate on tasks in their pinned environments (cached by content)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

EPILOG = """examples:
  bench certify kind:synthetic             certify (or confirm from cache) every synthetic task
  bench certify click-2345 --k 5           five runs each side
  bench certify --no-cache 'synthetic.*'   run the tests even when a certificate is cached
  bench certify kind:pr --cluster tcp://10.0.0.5:8786   each task on a Dask worker (docs/scaling.md)
Certificates are written to results/certificates/<task_id>.json.gz (gzip of the canonical JSON; --out FILE
writes plain JSON unless FILE ends in .gz). Exit 1 when a task is dropped.
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("certify", help="certify tasks with the gate", epilog=EPILOG,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("selector", nargs="?", default=None, help="task selector (default: every task)")
    p.add_argument("--k", type=int, default=3, help="runs per side (default 3)")
    p.add_argument("--sandbox", default=None, help="sandbox backend (default $BENCH_SANDBOX or bwrap)")
    p.add_argument("--mirror", type=Path, default=None, help="a local bare git mirror of the task's repo")
    p.add_argument("--no-cache", action="store_true", help="ignore cached certificates")
    p.add_argument("--cluster", default=None, metavar="tcp://HOST:8786",
                   help="certify on this Dask scheduler's workers (default: $BENCH_CLUSTER; empty: here); "
                        "lines come in the order tasks finish")
    p.add_argument("--spec", type=Path, default=None, help="certify this one spec file (used by the Pants goal)")
    p.add_argument("--out", type=Path, default=None, help="with --spec: where to write the certificate")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from bench.errors import UsageError
    from bench.gate.certify import certify, write_certificate
    from bench.gate.committed_certificate import commit_certificate
    from bench.progress import progress
    from bench.spec.load import discover, load_all, load_spec, select
    from bench.variables import find_root, get

    if args.k < 1:
        raise UsageError("--k must be at least 1")
    root = find_root()
    sandbox = args.sandbox or get("BENCH_SANDBOX")
    specs = (load_spec(args.spec),) if args.spec else select(load_all(discover(root)), args.selector)
    counts = {"dropped": 0, "cached": 0}

    def report(spec, outcome) -> None:
        cert = outcome.certificate
        if args.spec and args.out:
            write_certificate(args.out, cert.to_json())
        else:
            commit_certificate(spec, cert, root, k=args.k, sandbox_name=sandbox)
        counts["cached"] += outcome.cached
        counts["dropped"] += not cert.admitted
        state = "cached   " if outcome.cached else "certified"
        sets = cert.sets
        timing = " ".join(f"{k}={v:.1f}s" for k, v in outcome.seconds.items())
        print(f"{state} {spec.task_id}: {cert.decision.reason} f2p={len(sets.fail_to_pass)} "
              f"p2p={len(sets.pass_to_pass)} flaky={len(sets.flaky)} {timing}".rstrip())

    cluster = get("BENCH_CLUSTER") if args.cluster is None else args.cluster
    if cluster:
        from bench.gate.remote_certify import certify_on_cluster

        if args.mirror is not None:
            raise UsageError("--mirror names a folder on this machine; with --cluster, set BENCH_MIRROR_DIR on "
                             "each worker host instead")
        certify_on_cluster(cluster, specs, root, k=args.k, sandbox_name=sandbox, use_cache=not args.no_cache,
                           deliver=report)
    else:
        for spec in progress(specs, desc="certify"):
            report(spec, certify(spec, root, k=args.k, sandbox_name=sandbox, mirror=args.mirror,
                                 use_cache=not args.no_cache))
    dropped, cached = counts["dropped"], counts["cached"]
    print(f"{len(specs)} tasks: {len(specs) - dropped} admitted, {dropped} dropped, {cached} from cache",
          file=sys.stderr)
    return 1 if dropped else 0
