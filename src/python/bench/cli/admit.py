"""`bench admit CANDIDATE.json...`: lock, certify and (only if admitted) add candidates to the pool."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Iterable

EPILOG = """examples:
  bench admit .bench/candidates/click/click-2345.json --mirror /mirrors/pallets+click
  bench admit .bench/candidates/click/click-*.json --k 3     (bench mine's candidates; not its reports)
  bench admit .bench/candidates/click/click-*.json --cluster tcp://10.0.0.5:8786   the gate on Dask workers
  bench admit synthetic.clamp.json    a synthetic task written in tasks/synthetic/clamp/
Admitted specs go to tasks/<group>/ (a synthetic task's to tasks/synthetic/<slug>.json), locks to
lockfiles/tasks/, certificates to results/certificates/; dropped candidates to tasks/_dropped/ with the reason
and what the gate ran (runs per side and, when no test flipped, the first 20 tests that did not, with their
outcomes). A dropped candidate's own lock is removed (a lock shared or named by a spec of the pool stays).

Locks: a PR or mutation candidate's lock (a mutant's is its release's) is resolved again unless --reuse-lock.
Every synthetic task shares lockfiles/tasks/synthetic.lock, and each certificate names its hash, so admitting
a synthetic task keeps that lock as it is: no other task's lock or certificate changes and the committed runs
still reproduce. When the lock does not serve the new task (its code imports a package the lock does not pin,
or its image has another Python) nothing is admitted and the command says so (exit 2); --relock re-resolves
the shared lock for it, which changes every synthetic task's lock and certificate. A synthetic task scored with the
scripted model needs its trajectories next: PYTHONPATH=src/python python3 -m bench.study.generate (from the
checkout's root); admit says so.

Exit 0 when every candidate is admitted, 1 when any is dropped, 2 for a candidate that cannot be admitted as
asked (before anything is written).
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("admit", help="admit candidate tasks through the gate", epilog=EPILOG,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("candidates", nargs="+", type=Path, help="candidate spec files (from bench mine or bench mutate)")
    p.add_argument("--k", type=int, default=3, help="gate runs per side (default 3)")
    p.add_argument("--sandbox", default=None, help="sandbox backend: bwrap (default, or $BENCH_SANDBOX) or docker")
    p.add_argument("--mirror", type=Path, default=None,
                   help="a local bare git mirror of the task's repository (else $BENCH_MIRROR_DIR, else a clone)")
    locks = p.add_mutually_exclusive_group()
    locks.add_argument("--reuse-lock", action="store_true",
                       help="keep a PR or mutation candidate's existing lock instead of resolving it again "
                            "(a synthetic task always keeps the shared lock unless --relock)")
    locks.add_argument("--relock", action="store_true",
                       help="resolve the synthetic tasks' shared lock (lockfiles/tasks/synthetic.lock) again, as "
                            "`bench lock` does, before admitting: whenever it comes out different (it does when a "
                            "task needs a package it lacks) the lock and the certificate of EVERY synthetic task "
                            "change, and committed runs of them no longer reproduce until scored again")
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
    _check_candidates(documents, root, relock=args.relock)
    mutations = [doc for doc in documents if doc.get("kind") == "mutation"]
    others = [doc for doc in documents if doc.get("kind") != "mutation"]
    cluster = get("BENCH_CLUSTER") if args.cluster is None else args.cluster
    if cluster and args.mirror is not None:
        raise UsageError("--mirror names a folder on this machine; with --cluster, set BENCH_MIRROR_DIR on each "
                         "worker host instead")
    settings = {"k": args.k, "sandbox_name": args.sandbox or get("BENCH_SANDBOX"), "max_targets": args.max_targets,
                "relock": not args.reuse_lock}
    shared = {"relock_shared": args.relock}
    results = []
    if mutations:  # one batch per release: shared lock, environment and release-suite runs
        results += _admit_mutations(mutations, root, cluster, cap=args.cap, **settings)
    if others and cluster:
        from bench.gate.remote_admit import admit_on_cluster

        admit_on_cluster(cluster, others, root, deliver=lambda result: results.append(_print(result)), **settings,
                         **shared)
    else:
        from bench.gate.admit import admit

        results += [_print(admit(doc, root, mirror=args.mirror, **settings, **shared)) for doc in others]
    _next_steps(results, root)
    return exit_code(result.admitted for result in results)


def exit_code(admitted: Iterable[bool]) -> int:
    """0 when every candidate tried was admitted, 1 when any was not: `bench admit`'s and `bench mine --admit`'s."""
    from bench.errors import EXIT_FAILED, EXIT_OK

    return EXIT_FAILED if not all(admitted) else EXIT_OK


def _check_candidates(documents: list[dict], root: Path, *, relock: bool) -> None:
    """Before anything is written: each candidate is named as its kind wants (a synthetic task after its
    folder), and a lock its kind shares serves it (unless it is to be resolved again)."""
    from bench.gate.shared_lock import check_shared_lock, shares_lock
    from bench.spec.kind_registry import get_kind
    from bench.spec.load import spec_from_document

    for doc in documents:
        spec = spec_from_document(doc, path=str(root / "tasks" / "_candidates" / f"{doc.get('task_id')}.json"))
        get_kind(spec.kind).check_admission(spec)
        if shares_lock(spec) and not relock:
            check_shared_lock(spec, root)


def _next_steps(results, root: Path) -> None:
    """What an admitted synthetic task still needs before `bench score --model scripted` can replay it."""
    import sys

    from bench.model.scripted import DEFAULT_STUDY, GENERATE_COMMAND, SCRIPTED_DIR, slug_of

    lacking = [result.task_id for result in results if result.admitted and result.task_id.startswith("synthetic.")
               and not (root / SCRIPTED_DIR / DEFAULT_STUDY / f"{slug_of(result.task_id)}.json").exists()]
    if lacking:
        print(f"next: the scripted study has no trajectory for {', '.join(lacking)}; make it (from the checkout's "
              f"root) with: {GENERATE_COMMAND}", file=sys.stderr)


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
