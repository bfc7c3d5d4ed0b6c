"""`bench report`: build the Markdown/HTML report with plots from a results JSONL file."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

EPILOG = """\
example:
  bench report results/run.jsonl --out results/run-report
  # writes results/run-report/report.md, report.html and the PNGs they show; prints their paths

The report is a pure function of the records (in any order): the same records give byte-identical files.
Record fields read: see src/python/bench/report/README.md.
"""


def add_parser(subparsers) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "report",
        help="build the report (tables, statistics, plots) from a results JSONL file",
        description=__doc__,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("results", type=Path, metavar="RESULTS.jsonl", help="results file (one record per line)")
    parser.add_argument(
        "--out",
        type=Path,
        default=None,
        metavar="DIR",
        help="output directory (default: RESULTS-report/ beside the results file)",
    )
    parser.set_defaults(run=run)
    return parser


def default_out_dir(results: Path) -> Path:
    return results.with_name(f"{results.stem}-report")


def run(args: argparse.Namespace) -> int:
    # Imported here: the report pulls in statistics and, when plotting, matplotlib.
    from bench.report.build import build_report, load_records

    records = load_records(args.results)
    out_dir = args.out if args.out is not None else default_out_dir(args.results)
    print(f"report: {len(records)} records from {args.results}", file=sys.stderr)
    paths = build_report(records, out_dir)
    for path in (paths.md, paths.html, *paths.pngs):
        print(path)
    return 0
