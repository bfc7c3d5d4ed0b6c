"""Build the report directory (``report.md``, ``report.html`` and PNGs) from result records.

The output is a pure function of the records *as a set* and, when built from a run's folder, of its ``run.json``,
``summary.json`` and the dates of its benchmark commits (``bench.report.headline``): no other timestamps, no host
names, sorted everywhere, fixed PNG metadata and a fixed bootstrap seed — the same records in any order give
byte-identical files. Each file is written atomically (temp file in the same directory, then ``os.replace``).
"""

from __future__ import annotations

from bench.store.atomic import write_atomic  # noqa: F401  (re-exported: callers import it from here)

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

from bench.errors import UsageError
from bench.report.cutoff import DateSplit
from bench.report.document import render_markdown
from bench.report.headline import header_blocks, read_run_info
from bench.report.html import render_html
from bench.report.plots import render_png
from bench.report.prompts import prompt_runs
from bench.report.runs import parse_records
from bench.report.sections import compose
from bench.report.tiers import tier_section

MARKDOWN_NAME = "report.md"
HTML_NAME = "report.html"


@dataclass(frozen=True)
class ReportPaths:
    md: Path
    html: Path
    pngs: tuple[Path, ...]


def build_report(records: Sequence[Mapping[str, Any]], out_dir: Path,
                 adequacy_bands: Mapping[str, str] | None = None, run_dir: Path | None = None,
                 cutoff: DateSplit | None = None) -> ReportPaths:
    """Write the report for ``records`` into ``out_dir`` (created if missing) and return the paths written;
    ``adequacy_bands`` (task id → test adequacy band) splits the results by the adequacy of their tasks;
    ``run_dir``, the run's folder, gives the settings (its run.json and summary.json) and the checkout whose
    history dates the benchmark commits; ``cutoff`` splits every headline at a training cut-off."""
    record_set = parse_records(records)
    commits = [str((r.get("integrity") or {}).get("benchmark_commit") or "") for r in records
               if isinstance(r.get("integrity"), Mapping)]
    info = read_run_info(run_dir, commits)
    document, plots = compose(record_set, records_digest(records), len(records), prompt_runs(records),
                              adequacy_bands, tier_section(records), header_blocks(record_set, records, info),
                              cutoff)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    pngs = tuple(write_atomic(out_dir / plot.filename, render_png(plot)) for plot in plots)
    markdown = write_atomic(out_dir / MARKDOWN_NAME, render_markdown(document).encode("utf-8"))
    html = write_atomic(out_dir / HTML_NAME, render_html(document).encode("utf-8"))
    return ReportPaths(markdown, html, pngs)


def load_records(path: Path) -> list[dict[str, Any]]:
    """One JSON object per non-blank line of a JSONL file; errors name the line."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UsageError(f"results file not found: {path}") from None
    records = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as error:  # bad input, as everywhere else: exit 2
            raise UsageError(f"{path}:{number}: not valid JSON ({error.msg})") from None
        if not isinstance(record, dict):
            raise UsageError(f"{path}:{number}: expected a JSON object")
        records.append(record)
    return records


def records_digest(records: Sequence[Mapping[str, Any]]) -> str:
    """sha256 of the records as a set: canonical JSON lines, sorted, newline-terminated."""
    lines = sorted(json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False) for record in records)
    digest = hashlib.sha256()
    for line in lines:
        digest.update(line.encode("utf-8", "surrogatepass") + b"\n")
    return digest.hexdigest()


