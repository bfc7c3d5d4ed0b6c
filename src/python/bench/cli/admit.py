"""`bench admit CANDIDATE.json...`: lock, certify and (only if admitted) add candidates to the pool."""

from __future__ import annotations

import argparse

from pathlib import Path

EPILOG = """examples:
  bench admit candidates/click-2345.json --mirror /mirrors/pallets+click
  bench admit candidates/*.json --k 3
Admitted specs go to tasks/<group>/, locks to lockfiles/tasks/, certificates to results/certificates/;
dropped candidates to tasks/_dropped/ with the reason. Exit 1 when any candidate is dropped.
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("admit", help="admit candidate tasks through the gate", epilog=EPILOG,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("candidates", nargs="+", type=Path)
    p.add_argument("--k", type=int, default=3)
    p.add_argument("--sandbox", default=None)
    p.add_argument("--mirror", type=Path, default=None)
    p.add_argument("--reuse-lock", action="store_true", help="keep an existing lock instead of re-resolving")
    p.add_argument("--max-targets", type=int, default=None, help="drop candidates with more target tests")
    p.add_argument("--cap", type=int, default=None, help="mutation tasks per library (default: no cap)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from bench.gate.admit import admit
    from bench.spec.load import read_document
    from bench.variables import find_root, get

    root = find_root()
    documents = [read_document(path) for path in args.candidates]
    mutations = [doc for doc in documents if doc.get("kind") == "mutation"]
    dropped = 0
    if mutations:  # one batch per release: shared lock, environment and release-suite runs
        from bench.gate.mutation_batch import admit_mutations

        for outcome in admit_mutations(mutations, root, k=args.k, sandbox_name=args.sandbox or get("BENCH_SANDBOX"),
                                       max_targets=args.max_targets, cap=args.cap, relock=not args.reuse_lock):
            for result in outcome.admissions:
                dropped += not result.admitted
                _print(result)
    for doc in documents:
        if doc.get("kind") == "mutation":
            continue
        result = admit(doc, root, k=args.k, sandbox_name=args.sandbox or get("BENCH_SANDBOX"), mirror=args.mirror,
                       relock=not args.reuse_lock, max_targets=args.max_targets)
        dropped += not result.admitted
        _print(result)
    return 1 if dropped else 0


def _print(result) -> None:
    f2p = len(result.certificate.sets.fail_to_pass) if result.certificate else 0
    print(f"{'admitted' if result.admitted else 'dropped '} {result.task_id}: {result.reason} f2p={f2p}", flush=True)
