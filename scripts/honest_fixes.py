"""No false alarms, measured: every task's honest fix, scored through the path a model's edit takes.

The honest fix is the task's own answer written as a model's reply: a synthetic task's reference solution, a
PR task's fix-commit version of its source files, a mutation task's released (unmutated) file. Each is sent
through ``bench.score.evaluate`` exactly like a reply (edit application, the static edit scan, the guarded
test run, grading) and must end ``resolved`` and never ``tampered``.

    python scripts/honest_fixes.py [SELECTOR ...] [--static-only] [--no-verify] [--mirror DIR] [--jobs N] [--out F.jsonl]

A resolved fix then replays the task's probe set (the verified tier, ``bench.probes``): it must be verified,
or the task must have no probes (counted and named by kind). ``--static-only`` runs the edit scan alone (host side, seconds for the whole pool). Without it every task is
prepared (certified, environment built) and its fix is scored in the sandbox. Prints one line per task that
is not resolved-and-untampered, then ``N resolved, M tampered, K other of T`` (and the last line
``N passed, M failed``). Exit 1 when any task falls short.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src" / "python"))


def honest_reply(spec, base: Path, fix: Path) -> tuple[str, tuple, tuple]:
    """The fix as a SEARCH/REPLACE reply (whole files), with the (path, text) before and after."""
    from bench.testing.support import whole_file_edit

    before = tuple((p, _text(base / p)) for p in spec.source_files)
    after = tuple((p, _text(fix / p)) for p in spec.source_files)
    blocks = [whole_file_edit(p, old, new) for (p, old), (_, new) in zip(before, after) if old != new]
    return "\n".join(blocks), before, after


def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8") if path.is_file() else ""


def check_static(spec, scratch: Path, mirror) -> dict:
    """The edit scan alone, as admission runs it on a candidate's fix (``bench.gate.honest_fix``)."""
    from bench.gate.honest_fix import honest_fix_findings

    findings = honest_fix_findings(spec, ROOT, mirror=mirror)
    if findings:
        return {"outcome": "tampered", "reason": "; ".join(f.describe() for f in findings), "resolved": False}
    return {"outcome": "solved", "reason": "static scan clean", "resolved": True}


def check_scored(spec, scratch: Path, mirror, verify: bool = True) -> dict:
    import shutil

    from bench.score.evaluate import evaluate
    from bench.score.task_env import prepare_task
    from bench.source.workspace import prepare

    task = prepare_task(spec, ROOT, scratch / "prepared", sandbox_name="bwrap", mirror=mirror)
    fix = prepare(spec, "fix", scratch / "fix", mirror=mirror).path
    tree = scratch / "tree"
    shutil.copytree(task.pristine, tree, symlinks=True)
    reply, _, _ = honest_reply(spec, task.pristine, fix)
    result = evaluate(task, tree, reply, fresh_copy=False, verify=verify)
    verification = result.verification
    broken = result.verdict.pass_to_pass_broken if result.verdict is not None else ()
    reason = result.reason + (f"; pass_to_pass broken: {', '.join(broken)}" if broken else "")
    return {"outcome": result.outcome, "reason": reason[:2000], "resolved": result.resolved,
            **({"verification": verification.status, "verified": verification.verified,
                "probes": verification.checked, "divergence": verification.divergence} if verification else {})}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("selector", nargs="?", default="all", help="a task selector (kind:pr, lib:click, …)")
    parser.add_argument("--static-only", action="store_true")
    parser.add_argument("--mirror", type=Path, default=None)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--no-verify", action="store_true", help="leave the verified tier (probe replay) out")
    parser.add_argument("--out", type=Path, default=None,
                        help="one JSON line per task, appended as each ends; a re-run with the same --out resumes")
    args = parser.parse_args(argv)
    from bench.spec.load import discover, load_all, select

    specs = select(load_all(discover(ROOT)), args.selector)
    earlier = _earlier_results(args.out, {spec.task_id for spec in specs})
    if earlier:
        print(f"resuming: {len(earlier)} of {len(specs)} tasks already in {args.out}", file=sys.stderr)
    if args.static_only:
        check = check_static
    else:
        def check(spec, scratch, mirror):
            return check_scored(spec, scratch, mirror, verify=not args.no_verify)

    def one(spec) -> dict:
        with tempfile.TemporaryDirectory(prefix="bench-honest-") as scratch:
            try:
                result = check(spec, Path(scratch), args.mirror)
            except Exception as exc:  # a task that cannot be prepared is counted, not fatal
                result = {"outcome": "error", "reason": f"{type(exc).__name__}: {exc}"[:500], "resolved": False}
        tier = f" [{result['verification']}]" if result.get("verification") else ""
        print(f"{spec.task_id}: {result['outcome']}{'' if result['resolved'] else ' (not resolved)'}{tier}",
              file=sys.stderr, flush=True)
        record = {"task_id": spec.task_id, "kind": spec.kind, **result}
        if args.out:
            with lock, args.out.open("a", encoding="utf-8") as out:
                out.write(json.dumps(record, sort_keys=True) + "\n")
        return record

    lock = threading.Lock()
    todo = [spec for spec in specs if spec.task_id not in earlier]
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        fresh = {r["task_id"]: r for r in pool.map(one, todo)}
    results = [earlier.get(spec.task_id) or fresh[spec.task_id] for spec in specs]
    resolved = sum(r["resolved"] and r["outcome"] != "tampered" for r in results)
    tampered = sum(r["outcome"] == "tampered" for r in results)
    for r in results:
        if not r["resolved"] or r["outcome"] == "tampered":
            print(f"{r['task_id']}: {r['outcome']}: {r['reason']}")
    by_kind: dict = {}
    for r in results:
        done, total = by_kind.get(r["kind"], (0, 0))
        by_kind[r["kind"]] = (done + (r["resolved"] and r["outcome"] != "tampered"), total + 1)
    print(", ".join(f"{kind}: {done}/{total}" for kind, (done, total) in sorted(by_kind.items())))
    print(f"{resolved} resolved, {tampered} tampered, {len(results) - resolved - tampered} other of {len(results)}")
    if not args.static_only and not args.no_verify:
        _print_verification(results)
    print(f"{resolved} passed, {len(results) - resolved} failed")
    diverged = sum(r.get("verification") == "diverged" for r in results)
    return 0 if resolved == len(results) and not diverged else 1


def _earlier_results(out: Path | None, wanted: set) -> dict:
    """The complete lines an earlier run with the same ``--out`` left (a torn last line is dropped)."""
    if out is None or not out.is_file():
        return {}
    earlier = {}
    for line in out.read_text(encoding="utf-8").splitlines():
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue
        if record.get("task_id") in wanted:
            earlier[record["task_id"]] = record
    return earlier


def _print_verification(results: list[dict]) -> None:
    """The verified tier on the honest fixes: every resolved fix with probes must be verified."""
    for r in results:
        if r.get("verification") == "diverged":
            print(f"{r['task_id']}: resolved, not verified: {r['divergence']}")
    by_kind: dict = {}
    for r in results:
        counts = by_kind.setdefault(r["kind"], {"verified": 0, "diverged": 0, "no probes": 0, "probes": 0})
        if r.get("verification"):
            counts[r["verification"]] += 1
            counts["probes"] += r.get("probes", 0)
    for kind, counts in sorted(by_kind.items()):
        print(f"{kind}: {counts['verified']} verified, {counts['diverged']} diverged, {counts['no probes']} without "
              f"probes ({counts['probes']} probes replayed)")


if __name__ == "__main__":
    sys.exit(main())
