"""`bench report`: build the Markdown/HTML report with plots from a run's results (its folder or its JSONL)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

EPILOG = """\
examples:
  bench report results/runs/scripted-study/20261201-101500      the folder bench score wrote
  bench report some/results.jsonl --out /tmp/report
  # writes report.md, report.html and the PNGs they show into report/ beside the results (as bench score
  # does) or --out; prints their paths. Malformed JSON lines are bad input: exit 2.

  bench report results/study/repairer-ast-pr --adequacy
  # ... with the results split by the test adequacy of their tasks (bench adequacy; measured under the task's
  # current certificate), and the tasks solved although their tests let a near miss of the fix through

The report is a pure function of the records (in any order): the same records give byte-identical files;
with --adequacy, of the records and the checkout's adequacy records.
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
    parser.add_argument("results", type=Path, metavar="RESULTS",
                        help="a run's folder (its results.jsonl) or a results JSONL file (one record per line)")
    parser.add_argument(
        "--out",
        type=Path,
        default=None,
        metavar="DIR",
        help="output directory (default: report/ beside the results file, as bench score writes it)",
    )
    parser.add_argument("--adequacy", action="store_true",
                        help="split the results by the test adequacy of their tasks (this checkout's "
                             "results/adequacy)")
    parser.set_defaults(run=run)
    return parser


def results_file(path: Path) -> Path:
    """A run's folder names its results.jsonl (its records.jsonl while the run has not finished)."""
    if not path.is_dir():
        return path
    for name in ("results.jsonl", "records.jsonl"):
        if (path / name).is_file():
            return path / name
    from bench.errors import UsageError

    raise UsageError(f"{path} holds no results.jsonl or records.jsonl: give a run's folder or a JSONL file")


def default_out_dir(results: Path) -> Path:
    return results.parent / "report"


def run(args: argparse.Namespace) -> int:
    # Imported here: the report pulls in statistics and, when plotting, matplotlib.
    from bench.report.build import build_report, load_records

    source = results_file(args.results)
    records = load_records(source)
    out_dir = args.out if args.out is not None else default_out_dir(source)
    print(f"report: {len(records)} records from {source}", file=sys.stderr)
    bands = _adequacy_bands(records) if args.adequacy else None
    paths = build_report(records, out_dir, bands, run_dir=source.parent)
    for path in (paths.md, paths.html, *paths.pngs):
        print(path)
    return 0


def _adequacy_bands(records) -> dict[str, str]:
    from bench.gate import adequacy_store
    from bench.variables import find_root

    root = find_root()
    task_ids = sorted({record["task_id"] for record in records if "task_id" in record})
    return adequacy_store.bands(adequacy_store.current(root, task_ids))
