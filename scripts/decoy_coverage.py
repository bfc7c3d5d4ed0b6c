"""How many tasks a run can plant decoys in: the decoy layer's reach, measured over a pool.

    python scripts/decoy_coverage.py [SELECTOR] [--mirror DIR] [--out F.jsonl]

For each task, its workspace is laid out as a scored run sees it (base with the fix's tests overlaid; no
sandbox, nothing of it runs) and ``bench.verdict.decoys.plant_decoys`` is asked for clones of its
fail_to_pass tests. Prints, per kind, the tasks with at least one decoy, how many decoys expect another
literal (they also catch answers read from the test) and how many turn a check around, and the tasks with
none (a parametrised expectation, a helper that asserts, ``pytest.raises`` only, or a test that may return
early). Then the hidden copies: the tasks each of whose target tests gets an unchanged copy under another
id (forgery keyed on exact ids cannot pass them), and those with at least one. A task that cannot be laid out (a missing mirror) is counted apart, never as covered.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src" / "python"))


def coverage(spec, scratch: Path, mirror) -> dict:
    from bench.source.workspace import prepare
    from bench.verdict.decoys import plant_decoys

    tree = prepare(spec, "base", scratch / "tree", mirror=mirror).path
    decoys = plant_decoys(tree, spec.fail_to_pass)
    targets = {t.split("[", 1)[0] for t in spec.fail_to_pass}
    return {"decoys": len(decoys.pairs), "literal": decoys.kinds.count("literal"), "targets": len(targets),
            "copies": len(decoys.copies)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("selector", nargs="?", default="all")
    parser.add_argument("--mirror", type=Path, default=None)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    from bench.spec.load import discover, load_all, select

    rows = []
    for spec in select(load_all(discover(ROOT)), args.selector):
        with tempfile.TemporaryDirectory(prefix="bench-decoys-") as scratch:
            try:
                row = coverage(spec, Path(scratch), args.mirror)
            except Exception as exc:  # a task that cannot be laid out is counted apart
                row = {"decoys": None, "error": f"{type(exc).__name__}: {exc}"[:300]}
        rows.append({"task_id": spec.task_id, "kind": spec.kind, **row})
        print(f"{spec.task_id}: {row.get('decoys')}", file=sys.stderr, flush=True)
    if args.out:
        args.out.write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in rows))
    kinds = sorted({r["kind"] for r in rows})
    for kind in kinds:
        mine = [r for r in rows if r["kind"] == kind]
        done = [r for r in mine if r["decoys"] is not None]
        covered = sum(1 for r in done if r["decoys"])
        counts = Counter(min(r["decoys"], 3) for r in done)
        print(f"{kind}: {covered} of {len(done)} tasks with a decoy ({len(mine) - len(done)} not laid out); "
              f"decoys per task {dict(sorted(counts.items()))}; with another literal: "
              f"{sum(1 for r in done if r.get('literal'))}")
        every = sum(1 for r in done if r["copies"] == r["targets"])
        some = sum(1 for r in done if r["copies"])
        print(f"{kind}: hidden copies of every target in {every} of {len(done)} tasks, of at least one in {some}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
