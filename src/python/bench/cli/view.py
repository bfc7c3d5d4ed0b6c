"""`bench view RUN`: a run's units as static HTML pages (a summary page and a page per task)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

EPILOG = """examples:
  bench view results/runs/repairer-ast/20261201-101500        writes <run>/view/index.html
  bench view results/runs/repairer-ast/20261201-101500 --out /tmp/view
Each task's page shows every unit's outcome and, per turn, the failure signature, the failing tests, the edit
as a diff and the tests' full messages (from the run's units/ folder, when it has one); a count-only or resample
unit's page says its model did not see them. Open index.html in a browser; no server is needed.
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("view", help="a run as static HTML pages, one per task", epilog=EPILOG,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("folder", type=Path, metavar="RUN", help="a run's folder (or its results.jsonl)")
    p.add_argument("--out", type=Path, default=None, help="output folder (default: <run>/view/)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from bench.cli.report import results_file
    from bench.loop.records import UNIT_KINDS, UnitRecord
    from bench.report.build import load_records
    from bench.report.view import write_view

    source = results_file(args.folder)
    records = [UnitRecord.from_json(raw, f"{source}: record {number}")
               for number, raw in enumerate(load_records(source), start=1) if raw.get("kind") in UNIT_KINDS]
    index = write_view(records, source.parent, args.out or source.parent / "view")
    print(f"view: {len(records)} units from {source}", file=sys.stderr)
    print(index)
    return 0
