"""The tasks the verified tier was measured on: every synthetic task, and of the mutation and PR tasks the first
by a seeded hash (``sha256("verified-sample|<task id>")``), as one selector.

    python scripts/verified_sample.py KIND [--count N]      # synthetic (all), mutation (45), pr (25)
    python scripts/honest_fixes.py "$(python scripts/verified_sample.py mutation)"
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src" / "python"))
COUNTS = {"synthetic": None, "mutation": 45, "pr": 25}


def sample(kind: str, count: int | None) -> list[str]:
    from bench.spec.load import discover, load_all

    ids = [s.task_id for s in load_all(discover(ROOT)) if s.kind == kind]
    ranked = sorted(ids, key=lambda task_id: hashlib.sha256(f"verified-sample|{task_id}".encode()).hexdigest())
    return sorted(ranked[:count] if count is not None else ranked)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("kind", choices=sorted(COUNTS))
    parser.add_argument("--count", type=int, default=None, help="how many (default: the measured sample's)")
    args = parser.parse_args(argv)
    print(",".join(sample(args.kind, args.count if args.count is not None else COUNTS[args.kind])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
