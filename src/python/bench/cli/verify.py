"""`bench verify RESULTS`: recompute deterministic records from their inputs; check hashes of the others."""

from __future__ import annotations

import argparse
from pathlib import Path

EPILOG = """examples:
  bench verify results/study/scripted-study/results.jsonl     re-run every unit and compare field by field
  bench verify results/runs/openai-gpt-5-mini/results.jsonl    check prompt/response hashes against the store
  bench verify results/runs/predictions-preds/latest           score each kept patch again (a predictions run)
  bench verify results/certificates/                           re-certify and compare certificates byte for byte
  bench verify results/recorded/run --prune-third-party        before committing a recorded run: drop the
                                                               stored prompts/replies of real-code tasks
A re-run keeps its fresh records in .bench/verify/<key>/ (git-ignored; the key names the results file's bytes and
--tasks; each record names the commit it was made at): stopped part way, the same command resumes there; a group that differs leaves
its fresh records there to read, one found identical is removed.
Ends with `N identical, M different`; exit 1 when anything differs. A recomputed record must equal the stored one
in every field except the run's context: the benchmark commit and the digest of the task selection (a run
resumed after the pool grew holds units scored under several).
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("verify", help="recompute results and compare", epilog=EPILOG,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("results", type=Path, help="a results.jsonl, or a folder of certificates")
    p.add_argument("--prune-third-party", action="store_true",
                   help="delete stored prompts/replies that only real-code tasks cite (they quote the library)")
    p.add_argument("--sandbox", default=None, help="sandbox backend: bwrap (default, or $BENCH_SANDBOX) or docker")
    p.add_argument("--workers", type=int, default=2, help="units re-run at once (default 2)")
    p.add_argument("--tasks", default=None, metavar="SELECTOR",
                   help="check only the records of the tasks a selector picks (see bench list); retired tasks too")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from bench.errors import CheckFailed, UsageError
    from bench.loop.records import UnitRecord
    from bench.model.registry import declares_deterministic
    from bench.score.prediction import is_predictions_run, recompute_predictions
    from bench.score.recompute import check_stored_hashes, recompute
    from bench.store.records import read_records
    from bench.variables import find_root, get

    root = find_root()
    sandbox = args.sandbox or get("BENCH_SANDBOX")
    if args.results.is_dir() and not (args.results / "results.jsonl").exists():
        checks = _verify_certificates(args.results, root, sandbox)
    else:
        path = args.results / "results.jsonl" if args.results.is_dir() else args.results
        if not path.is_file():
            raise UsageError(f"no results file at {path}")
        records = [UnitRecord.from_json(raw, f"{path}: record {number}")
                   for number, raw in enumerate(read_records(path), start=1)]
        if args.tasks:
            records = _selected(records, args.tasks, root)
        if args.prune_third_party:
            from bench.score.recompute import prune_third_party

            print(f"pruned {prune_third_party(records, path.parent / 'store')} stored file(s) of real-code tasks")
        if is_predictions_run(path.parent):  # each record a kept patch, scored again from scratch
            checks = recompute_predictions(records, root, path.parent / "store", sandbox_name=sandbox,
                                           workers=args.workers)
        else:
            deterministic = [r for r in records if declares_deterministic(r.model)]
            others = [r for r in records if not declares_deterministic(r.model)]
            keep = _keep_folder(root, path, args.tasks) if deterministic else None
            if keep is not None:
                kept = sum(len(read_records(found)) for found in keep.glob("*/records.jsonl"))
                print(f"fresh records: {keep} ({kept} kept from an earlier run; stopped, the same command resumes "
                      "there)", flush=True)
            checks = recompute(deterministic, root, sandbox_name=sandbox, workers=args.workers,
                               keep=keep) if deterministic else []
            checks += check_stored_hashes(others, path.parent / "store")
    for check in checks:
        print(f"{check.status:<10} {check.unit} {check.detail}".rstrip())
    good = sum(c.status in ("identical", "ok", "not-kept") for c in checks)
    not_kept = sum(c.status == "not-kept" for c in checks)
    kept = f" ({not_kept} of them real-code units whose prompt and reply are not committed)" if not_kept else ""
    print(f"{good} identical{kept}, {len(checks) - good} different")
    if good != len(checks):
        raise CheckFailed(f"{len(checks) - good} record(s) did not verify")
    return 0


def _selected(records, selector: str, root: Path):
    from bench.errors import UsageError
    from bench.spec.load import discover, load_all, select

    chosen = {s.task_id for s in select(load_all(discover(root, retired=True)), selector)}
    kept = [r for r in records if r.task_id in chosen]
    if not kept:
        raise UsageError(f"no record of the results is of a task {selector!r} selects")
    return kept


def _keep_folder(root: Path, results: Path, selector: str | None) -> Path:
    """Where a re-run keeps its fresh records: named by the results file's bytes and the selection, so a changed
    file or another selection starts afresh. Not by the commit: a verify of the mutation study takes hours and
    may resume after a commit; each fresh record names the commit it was made at."""
    import hashlib

    digest = hashlib.sha256(results.read_bytes())
    digest.update(f"\0{selector or ''}".encode())
    return root / ".bench" / "verify" / digest.hexdigest()[:16]


def _verify_certificates(folder: Path, root: Path, sandbox: str):
    from bench.gate.certify import certify, read_certificate
    from bench.spec.load import discover, load_all
    from bench.score.recompute import Check, first_difference

    import json

    specs = {s.task_id: s for s in load_all(discover(root, retired=True))}
    checks = []
    for path in sorted([*folder.glob("*.json"), *folder.glob("*.json.gz")]):
        stored = read_certificate(path)
        task_id = json.loads(stored)["task_id"]
        if task_id not in specs:
            checks.append(Check(task_id, "different", "task no longer exists"))
            continue
        fresh = certify(specs[task_id], root, k=json.loads(stored)["k"], sandbox_name=sandbox, use_cache=False)
        again = fresh.certificate.to_json()
        where = first_difference(json.loads(stored), json.loads(again))
        checks.append(Check(task_id, "identical" if stored == again else "different",
                            f"first difference at {where}" if stored != again else ""))
    return checks
