"""Compare two runs' records unit by unit: which units are identical, which differ and in which fields.

    python scripts/compare_runs.py OLD NEW [--ignore FIELD ...] [--condition C]

OLD and NEW are run folders (their ``results.jsonl`` is read) or results files.

A unit is (task_id, model, condition, sample). ``--ignore`` names fields left out of the comparison, as dotted
paths where ``*`` matches every item of a list (``integrity.benchmark_commit``, ``turns.*.resolved``); a
field present on one side only counts as a difference unless ignored. Prints the counts, then one line per
differing unit with the paths that differ (first 20 units), and exits 1 when any unit differs or is missing
from NEW; 2, with the reason, when a side is not a results file or folder.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


class Unreadable(Exception):
    """A side that holds no results to compare."""


def load(path: Path, condition: str | None) -> dict[tuple, dict]:
    """The records of ``path`` (a results file, or a run folder holding ``results.jsonl``) by unit."""
    if path.is_dir():
        path = path / "results.jsonl"
    records = {}
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise Unreadable(f"{path}: {error.strerror or error}") from None
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip():
            try:
                record = json.loads(line)
                unit = (record["task_id"], record["model"], record.get("condition"), record.get("sample"))
            except (ValueError, KeyError, TypeError) as error:
                raise Unreadable(f"{path}:{number}: not a unit record ({error})") from None
            if condition is None or record.get("condition") == condition:
                records[unit] = record
    return records


def differences(old, new, ignore: set[str], path: str = "") -> list[str]:
    """Dotted paths where ``old`` and ``new`` differ; list items are numbered, ignored paths use ``*``."""
    if _ignored(path, ignore):
        return []
    if isinstance(old, dict) and isinstance(new, dict):
        found = []
        for key in sorted(set(old) | set(new)):
            child = f"{path}.{key}" if path else key
            if key not in old or key not in new:
                found += [] if _ignored(child, ignore) else [child]
            else:
                found += differences(old[key], new[key], ignore, child)
        return found
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        return [d for i, (a, b) in enumerate(zip(old, new)) for d in differences(a, b, ignore, f"{path}.{i}")]
    return [] if old == new else [path]


def _ignored(path: str, ignore: set[str]) -> bool:
    parts = path.split(".")
    starred = ".".join("*" if part.isdigit() else part for part in parts)
    return path in ignore or starred in ignore


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("old", type=Path)
    parser.add_argument("new", type=Path)
    parser.add_argument("--ignore", action="append", default=[], metavar="FIELD")
    parser.add_argument("--condition", default=None, help="compare the units of this condition only")
    args = parser.parse_args(argv)
    try:
        old, new = load(args.old, args.condition), load(args.new, args.condition)
    except Unreadable as error:
        print(f"compare_runs: {error}", file=sys.stderr)
        return 2
    shared = sorted(set(old) & set(new))
    differing = [(unit, differences(old[unit], new[unit], set(args.ignore))) for unit in shared]
    differing = [(unit, paths) for unit, paths in differing if paths]
    missing = sorted(set(old) - set(new))
    print(f"{len(shared)} units in both, {len(shared) - len(differing)} identical, {len(differing)} differ; "
          f"{len(missing)} only in {args.old}, {len(set(new) - set(old))} only in {args.new}")
    for unit, paths in differing[:20]:
        print(f"{'/'.join(str(part) for part in unit)}: {', '.join(paths[:8])}{' …' if len(paths) > 8 else ''}")
    return 1 if differing or missing else 0


if __name__ == "__main__":
    sys.exit(main())
