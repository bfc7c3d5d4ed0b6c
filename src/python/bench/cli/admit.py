"""`bench admit CANDIDATE.json...`: lock, certify and (only if admitted) add candidates to the pool."""

from __future__ import annotations

import argparse

from pathlib import Path

EPILOG = """examples:
  bench admit candidates/click-2345.json --mirror /mirrors/pallets+click
  bench admit candidates/*.json --k 3
  bench admit candidates/*.json --cluster tcp://10.0.0.5:8786   gate each candidate on a Dask worker
Admitted specs go to tasks/<group>/, locks to lockfiles/tasks/, certificates to results/certificates/;
dropped candidates to tasks/_dropped/ with the reason. Exit 1 when any candidate is dropped.
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("admit", help="admit candidate tasks through the gate", epilog=EPILOG,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("candidates", nargs="+", type=Path, help="candidate spec files (from bench mine or bench mutate)")
    p.add_argument("--k", type=int, default=3, help="gate runs per side (default 3)")
    p.add_argument("--sandbox", default=None, help="sandbox backend: bwrap (default, or $BENCH_SANDBOX) or docker")
    p.add_argument("--mirror", type=Path, default=None,
                   help="a local bare git mirror of the task's repository (else $BENCH_MIRROR_DIR, else a clone)")
    p.add_argument("--reuse-lock", action="store_true", help="keep an existing lock instead of re-resolving")
    p.add_argument("--max-targets", type=int, default=None, help="drop candidates with more target tests")
    p.add_argument("--cap", type=int, default=None, help="mutation tasks per library (default: no cap)")
    p.add_argument("--cluster", default=None, metavar="tcp://HOST:8786",
                   help="run the gate on this Dask scheduler's workers (default: $BENCH_CLUSTER; empty: here); "
                        "this process alone writes specs, locks and certificates")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from bench.errors import UsageError
    from bench.spec.load import read_document
    from bench.variables import find_root, get

    root = find_root()
    documents = [read_document(path) for path in args.candidates]
    mutations = [doc for doc in documents if doc.get("kind") == "mutation"]
    others = [doc for doc in documents if doc.get("kind") != "mutation"]
    cluster = get("BENCH_CLUSTER") if args.cluster is None else args.cluster
    if cluster and args.mirror is not None:
        raise UsageError("--mirror names a folder on this machine; with --cluster, set BENCH_MIRROR_DIR on each "
                         "worker host instead")
    settings = {"k": args.k, "sandbox_name": args.sandbox or get("BENCH_SANDBOX"), "max_targets": args.max_targets,
                "relock": not args.reuse_lock}
    results = []
    if mutations:  # one batch per release: shared lock, environment and release-suite runs
        results += _admit_mutations(mutations, root, cluster, cap=args.cap, **settings)
    if others and cluster:
        from bench.gate.remote_admit import admit_on_cluster

        admit_on_cluster(cluster, others, root, deliver=lambda result: results.append(_print(result)), **settings)
    else:
        from bench.gate.admit import admit

        results += [_print(admit(doc, root, mirror=args.mirror, **settings)) for doc in others]
    return 1 if any(not result.admitted for result in results) else 0


def _admit_mutations(mutations, root, cluster, *, cap, **settings) -> list:
    if cluster:
        from bench.gate.remote_admit import admit_mutations_on_cluster

        outcomes = admit_mutations_on_cluster(mutations, root, cluster, cap=cap, on_result=None, **settings)
    else:
        from bench.gate.mutation_batch import admit_mutations

        outcomes = admit_mutations(mutations, root, cap=cap, **settings)
    return [_print(result) for outcome in outcomes for result in outcome.admissions]


def _print(result):
    f2p = len(result.certificate.sets.fail_to_pass) if result.certificate else 0
    print(f"{'admitted' if result.admitted else 'dropped '} {result.task_id}: {result.reason} f2p={f2p}", flush=True)
    return result
