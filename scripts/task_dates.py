"""Every task has a date: list the tasks whose spec does not say the day they are dated by, and write it.

    python scripts/task_dates.py            list the undated tasks of the pool (and the retired ones); exit 1 if any
    python scripts/task_dates.py --write    ... and date them: a mutation task by the day its pinned release was
                                            uploaded (the index's upload-time), a synthetic task by the day its
                                            spec was first committed

A PR task is dated by its merge (``provenance.merged_at``, recorded when it was mined). The day is a label, not
part of the spec's identity: writing it changes no ``spec_sha256``, certificate or record. Admission dates every
new task itself (``dating`` of its kind); this fills the specs admitted before it did.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src" / "python"))

from bench.spec.kind_registry import kind_of  # noqa: E402
from bench.spec.labels import write_labels  # noqa: E402
from bench.spec.load import discover, load_all  # noqa: E402
from bench.spec.model import utc_day  # noqa: E402


def first_committed_day(path: Path) -> str:
    """The UTC day of the commit that first added ``path`` ("" when it was never committed)."""
    log = subprocess.run(["git", "-C", str(ROOT), "log", "--follow", "--diff-filter=A", "--format=%cI", "--",
                          str(path.relative_to(ROOT))], capture_output=True, text=True, check=True).stdout.split()
    return utc_day(log[-1]) if log else ""


def labels_for(spec) -> dict[str, str]:
    if spec.kind == "synthetic":
        day = first_committed_day(Path(spec.path))
        return {"authored": day} if day else kind_of(spec).dating(dict(spec.raw))
    return kind_of(spec).dating(dict(spec.raw))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--write", action="store_true", help="write the day into each undated spec")
    args = parser.parse_args()
    undated = [s for s in load_all(discover(ROOT, retired=True)) if not s.date]
    written: Counter[str] = Counter()
    left = []
    for spec in undated:
        labels = labels_for(spec) if args.write else {}
        if labels:
            write_labels(Path(spec.path), labels)
            written[spec.kind] += 1
            print(f"{spec.task_id}\t{next(iter(labels.values()))}")
        else:
            left.append(spec)
            print(f"{spec.task_id}\tundated")
    if written:
        print(f"dated {sum(written.values())} ({', '.join(f'{k} {n}' for k, n in sorted(written.items()))})",
              file=sys.stderr)
    print(f"{len(left)} undated", file=sys.stderr)
    return 1 if left else 0


if __name__ == "__main__":
    sys.exit(main())
