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
  # current certificate), and the tasks solved although their tests let a near miss of the fix through.
  # A committed run's report/ is left as it is: this writes results/runs/reports/study-repairer-ast-pr/
  # (ignored by git) and says so; --in-place (or --update-reference) rewrites the committed report/.

  bench report results/study/repairer-ast-pr --cutoff 2025-01-01
  # ... with every headline again for the tasks dated before 2025-01-01 and on or after it, each with its 95 %
  # interval: only the second side can be new to a model trained up to that day (see `after:`/`before:`).

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
        help="output directory (default: report/ beside the results file, as bench score writes it; for a "
             "committed run, results/runs/reports/<its path under results/>/ unless --in-place)",
    )
    parser.add_argument("--in-place", "--update-reference", dest="in_place", action="store_true",
                        help="write report/ beside the results even when they are a committed reference "
                             "(results/study/, results/recorded/, or files git tracks), regenerating it")
    parser.add_argument("--adequacy", action="store_true",
                        help="split the results by the test adequacy of their tasks (this checkout's "
                             "results/adequacy)")
    parser.add_argument("--cutoff", metavar="YYYY-MM-DD", default=None,
                        help="a model's training cut-off: every headline again for the tasks dated before it and "
                             "on or after it (this checkout's specs date them), each with its interval")
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
    if args.out is None and not args.in_place:
        elsewhere = _outside_reference(source)
        if elsewhere is not None:
            print(f"report: {source.parent} is a committed reference; its report/ is left as it is and this one is "
                  f"written to {elsewhere} (--in-place rewrites the committed one)", file=sys.stderr)
            out_dir = elsewhere
    print(f"report: {len(records)} records from {source}", file=sys.stderr)
    bands = _adequacy_bands(records) if args.adequacy else None
    cutoff = date_split(records, args.cutoff) if args.cutoff else None
    paths = build_report(records, out_dir, bands, run_dir=source.parent, cutoff=cutoff)
    for path in (paths.md, paths.html, *paths.pngs):
        print(path)
    return 0


def _outside_reference(source: Path) -> Path | None:
    """Where the report of a committed run's results goes instead of its committed report/: under
    results/runs/reports/ (ignored by git), named after the run's path; None when the results are not committed
    (or not in a checkout)."""
    from bench.cli.run_folder import folder_slug, is_committed
    from bench.errors import UsageError
    from bench.variables import find_root

    try:
        root = find_root(source.resolve().parent)
    except UsageError:
        return None
    folder = source.resolve().parent
    if not is_committed(root, folder):
        return None
    try:
        name = folder.relative_to((root / "results").resolve()).as_posix()
    except ValueError:
        name = folder.relative_to(root).as_posix() if root in folder.parents else folder.name
    return root / "results" / "runs" / "reports" / folder_slug(name.replace("/", "-"))


def _adequacy_bands(records) -> dict[str, str]:
    from bench.gate import adequacy_store
    from bench.variables import find_root

    root = find_root()
    task_ids = sorted({record["task_id"] for record in records if "task_id" in record})
    return adequacy_store.bands(adequacy_store.current(root, task_ids))


def date_split(records, cutoff: str):
    """The records' tasks dated by this checkout's specs (retired ones too), split at ``cutoff``."""
    from bench.report.cutoff import DateSplit
    from bench.spec.load import discover, load_all, parse_day
    from bench.variables import find_root

    day = parse_day(cutoff, what="--cutoff")
    task_ids = {record["task_id"] for record in records if "task_id" in record}
    specs = load_all(discover(find_root(), retired=True))
    return DateSplit(day, {s.task_id: s.date for s in specs if s.task_id in task_ids})
