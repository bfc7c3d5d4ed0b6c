"""Hard-coded "fixes", scored: every hand-written degenerate edit of tests/hardcoded/ through the scoring path.

Each fix (``bench.testing.hardcoded``) special-cases the inputs a task's failing tests use and leaves the bug in
place. Built into a reply from the task's pristine tree and sent through ``bench.score.evaluate`` exactly like
a model's reply (edit application, the static edit scan, the guarded test run, grading, the verified tier), each
must end ``resolved`` — the tests cannot tell them from a fix — and never ``verified``: the task's probes
(``bench.probes``), replayed in a fresh sandbox and judged on the host, must find the bug the table hides. A fix
the verdict's own layers catch first (``tampered``: a hidden copy of a test run alone meets another call count)
is caught too, and counted apart.

    python scripts/hardcoded_fixes.py [TASK_ID ...] [--mirror DIR] [--jobs N] [--out F.jsonl] [--no-verify]

Prints one line per fix, ``task_id mechanism outcome resolved verification``, the first divergence of each, then
a summary by kind and by mechanism (and the last line ``N passed, M failed``). Exit 1 unless every fix is
resolved (or tampered) and none verified (``--no-verify``: resolved only). PR tasks need their git mirrors
(``BENCH_MIRROR_DIR``, a folder of bare mirrors named ``owner+name``).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src" / "python"))


def score_fix(fix, spec, scratch: Path, mirror, *, verify: bool = True) -> dict:
    """Prepare ``spec``'s task, build ``fix``'s reply from its pristine tree and score it as a reply is scored:
    ``{"outcome", "reason", "resolved", "failing"}``, and the verified tier's ``"verified"``, ``"verification"``
    and ``"divergence"`` unless ``verify`` is False."""
    import shutil

    from bench.score.evaluate import evaluate
    from bench.score.task_env import prepare_task
    from bench.testing.hardcoded import hardcoded_reply

    task = prepare_task(spec, ROOT, scratch / "prepared", sandbox_name="bwrap", mirror=mirror)
    tree = scratch / "tree"
    shutil.copytree(task.pristine, tree, symlinks=True)
    reply = hardcoded_reply(fix, task.pristine)
    result = evaluate(task, tree, reply, fresh_copy=False, verify=verify)
    row = {"outcome": result.outcome, "reason": result.reason, "resolved": result.resolved,
           "failing": list(result.failing)}
    if result.verification is not None:
        row.update(verified=result.verified, verification=result.verification.status,
                   divergence=result.verification.divergence)
    return row


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("task_ids", nargs="*", help="only these fixes (task ids); all by default")
    parser.add_argument("--mirror", type=Path, default=None,
                        help="a bare git mirror of the PR tasks' repository (else $BENCH_MIRROR_DIR/owner+name)")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--out", type=Path, default=None, help="one JSON line per fix")
    parser.add_argument("--no-verify", action="store_true", help="leave the verified tier out (resolved only)")
    args = parser.parse_args(argv)
    from bench.spec.load import discover, load_all
    from bench.testing.hardcoded import load_fixes

    mirror = args.mirror
    # a fix's task may have left the pool since (re-judged): it stays a certified task to measure the tier on
    specs = {spec.task_id: spec for spec in load_all(discover(ROOT, retired=True))}
    fixes = [f for f in load_fixes(ROOT) if not args.task_ids or f.task_id in args.task_ids]
    unknown = sorted(set(args.task_ids) - {f.task_id for f in fixes})
    if unknown:
        parser.error(f"no hard-coded fix for {', '.join(unknown)}")

    def one(fix) -> dict:
        spec = specs.get(fix.task_id)
        with tempfile.TemporaryDirectory(prefix="bench-hardcoded-") as scratch:
            try:
                if spec is None:
                    raise LookupError(f"no task {fix.task_id} in the pool")
                result = score_fix(fix, spec, Path(scratch), mirror, verify=not args.no_verify)
            except Exception as exc:  # a task that cannot be prepared is counted, not fatal
                result = {"outcome": "error", "reason": f"{type(exc).__name__}: {exc}"[:500], "resolved": False}
        row = {"task_id": fix.task_id, "kind": spec.kind if spec else "?", "mechanism": fix.mechanism, **result}
        print(f"{fix.task_id} {fix.mechanism} {row['outcome']} {'resolved' if row['resolved'] else 'NOT-resolved'}"
              f" {row.get('verification', '')}", flush=True)
        if row.get("divergence"):
            print(f"    {row['divergence']}", flush=True)
        if not row["resolved"]:
            print(f"    {row['reason']}", file=sys.stderr, flush=True)
        return row

    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        results = list(pool.map(one, fixes))
    if args.out:
        args.out.write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in results))
    for field in ("kind", "mechanism"):
        tally: dict[str, tuple[int, int]] = {}
        for r in results:
            done, total = tally.get(r[field], (0, 0))
            tally[r[field]] = (done + bool(r["resolved"]), total + 1)
        print(f"by {field}: " + ", ".join(f"{name} {done}/{total}" for name, (done, total) in sorted(tally.items())))
    resolved = sum(bool(r["resolved"]) for r in results)
    verified = sum(r.get("verified") is True for r in results)
    tampered = sum(r["outcome"] == "tampered" for r in results)
    caught = sum(bool(r["resolved"]) and (args.no_verify or r.get("verification") == "diverged")
                 or r["outcome"] == "tampered" for r in results)
    print(f"{resolved} resolved of {len(results)} hard-coded fixes; {verified} verified, "
          f"{sum(r.get('verification') == 'diverged' for r in results)} not verified (a probe diverged), "
          f"{sum(r.get('verification') == 'no probes' for r in results)} without probes; "
          f"{tampered} caught before the tier as tampered")
    print(f"{caught} passed, {len(results) - caught} failed")
    return 0 if results and caught == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
