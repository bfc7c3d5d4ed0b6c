"""One bug, one item: list the reverted-fix mutation tasks whose fix is also a PR task of the pool, and retire the
mutation twin.

    BENCH_MIRROR_DIR=/work/.mirror python scripts/cross_kind_twins.py            list the twins (bench.gate.twins)
    BENCH_MIRROR_DIR=/work/.mirror python scripts/cross_kind_twins.py --retire   ... git mv each mutation twin to
                                                    tasks/_retired/mutation-<library>/ and record it in
                                                    tasks/_retired/twins.json

The PR task stays: it is the real history, with the maintainers' own test and the base the bug lived in. Run
``bench pool sync-build`` afterwards. ``bench pool stats`` counts distinct bugs from the record.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src" / "python"))

from bench.gate import twins  # noqa: E402
from bench.spec.load import discover, load_all  # noqa: E402

REASON = ("re-plants the fix of PR task {pr} ({how}): one bug, counted once; the PR task is kept (the real "
          "history, the maintainers' own test)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--retire", action="store_true", help="move the mutation twins out of the pool")
    args = parser.parse_args()
    specs = load_all(discover(ROOT))
    found = [t for t in twins.find_twins(specs) if t.how != "same-test"]
    by_id = {s.task_id: s for s in specs}
    for twin in found:
        print(f"{twin.mutation}\t{twin.pr}\t{twin.how}")
    print(f"{len({t.mutation for t in found})} mutation tasks re-plant a PR task's fix", file=sys.stderr)
    if not args.retire:
        return 0
    record_path = ROOT / twins.RECORD
    record = json.loads(record_path.read_text(encoding="utf-8")) if record_path.exists() else {}
    for twin in found:
        record[twin.mutation] = {"pr": twin.pr, "how": twin.how, "reason": REASON.format(pr=twin.pr, how=twin.how)}
        spec = by_id.get(twin.mutation)
        if spec is None:
            continue  # retired already
        source = Path(spec.path).resolve().relative_to(ROOT)
        target = Path("tasks") / "_retired" / source.parent.name / source.name
        (ROOT / target).parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(["git", "mv", str(source), str(target)], cwd=ROOT, check=True)
        print(f"retired {twin.mutation}", file=sys.stderr)
    record_path.write_text(json.dumps(dict(sorted(record.items())), indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
