"""Where a scoring run writes: never into a committed reference unless asked for by name.

- ``--out DIR``: exactly there (resumes what DIR holds);
- ``--name NAME``: ``results/runs/<model>/<NAME>/`` (run it again with the same name to resume);
- ``--update-reference``: ``results/study/<model>/``, the committed reference folder of that model;
- otherwise: ``results/runs/<model>/<UTC timestamp>/``, a new folder each time.

``results/runs/`` is ignored by git, so an ordinary run leaves ``git status`` clean.
"""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path

from bench.errors import UsageError

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")


def run_folder(root: Path, slug: str, *, out: Path | None, name: str | None, reference: bool) -> Path:
    if out is not None and (name or reference):
        raise UsageError("--out names the folder itself; it cannot be combined with --name or --update-reference")
    if name and reference:
        raise UsageError("--name and --update-reference choose different folders; give one of them")
    if out is not None:
        return out
    if reference:
        return root / "results" / "study" / slug
    if name is not None and not _NAME.match(name):
        raise UsageError(f"--name {name!r}: use letters, digits, '.', '_' and '-' (a folder name, no '/')")
    return root / "results" / "runs" / slug / (name or time.strftime("%Y%m%d-%H%M%S", time.gmtime()))


def add_arguments(parser) -> None:
    parser.add_argument("--out", type=Path, default=None,
                        help="results folder (default: a new results/runs/<model>/<UTC time>/)")
    parser.add_argument("--name", default=None,
                        help="results/runs/<model>/<NAME>/ instead of a timestamp: run again with it to resume")
    parser.add_argument("--update-reference", action="store_true",
                        help="write the committed reference folder results/study/<model>/ (regenerating it)")


def conclude_run(result, out: Path, model_id: str, *, report: bool, wall_seconds: float) -> int:
    """What every finished run prints and writes after its records: the summary, report/ and summary.json."""
    from bench.report.console import summary_lines

    print(f"{model_id}: {len(result.records)} units ({result.ran} run now, {result.skipped} resumed) → "
          f"{result.results_path}")
    for line in summary_lines(result.records):
        print(line)
    if report and result.records:
        from bench.report.build import build_report

        paths = build_report(list(result.records), out / "report", run_dir=out)
        print(f"report: {paths.md} {paths.html}", file=sys.stderr)
    return finish_run(result, out, wall_seconds)


def finish_run(result, out: Path, wall_seconds: float) -> int:
    """Write summary.json; with infrastructure errors, name them on stderr and exit 3."""
    from bench.errors import EXIT_INFRA
    from bench.report.run_summary import error_lines, run_summary, write_summary

    write_summary(out, run_summary(result.records, ran=result.ran, resumed=result.skipped,
                                   wall_seconds=wall_seconds, selection=getattr(result, "selection", None)))
    lines = error_lines(result.records, out)
    for line in lines:
        print(line, file=sys.stderr)
    return EXIT_INFRA if lines else 0
