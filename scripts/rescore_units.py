"""Score chosen units of a committed run again, from scratch, and put them in its place.

    python scripts/rescore_units.py results/study/repairer-ast-pr packaging-1345 requests-6036 [--workers 2]

For a change that moves a few units of a committed reference (a normalisation of the failing state, a field the
records gained) and leaves the rest as they are: `bench verify` says which units differ, this scores those again
with the run's own settings (model, turns, conditions, samples; no verdict cache) and replaces their lines in
the folder's ``results.jsonl``, ``records.jsonl`` and ``timings.jsonl``, each line where it stood, every other
line untouched (the plan is the one `bench verify` replays them with). Prints, per replaced unit, where it first
differs from the line it replaces. Only deterministic models: a sampled model's units are not scored again.
Regenerate the report afterwards with ``bench report FOLDER --in-place``. A file is replaced atomically, and
only once every asked-for unit was scored again.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

FILES = ("results.jsonl", "records.jsonl", "timings.jsonl")


def unit_of(line: str) -> tuple:
    """A line's unit: (task, model, condition, sample); a timings line names it in ``unit``."""
    from bench.score.units import record_key

    data = json.loads(line)
    return tuple(data["unit"]) if "unit" in data else record_key(data)


def splice(lines: list[str], fresh: dict[tuple, str]) -> tuple[list[str], list[tuple]]:
    """``lines`` with each line whose unit is in ``fresh`` replaced in place; and the units replaced."""
    out, replaced = [], []
    for line in lines:
        unit = unit_of(line) if line.strip() else None
        if unit in fresh:
            out.append(fresh[unit])
            replaced.append(unit)
        else:
            out.append(line)
    return out, replaced


def _write_atomically(path: Path, lines: list[str]) -> None:
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    with os.fdopen(handle, "w", encoding="utf-8") as out:
        out.write("".join(line + "\n" for line in lines))
    os.replace(temporary, path)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path, help="a committed run's folder (holding results.jsonl and run.json)")
    parser.add_argument("tasks", nargs="+", help="the task ids whose units are scored again")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--sandbox", default="bwrap")
    args = parser.parse_args(argv)

    from bench.loop.records import UnitRecord
    from bench.model.registry import declares_deterministic
    from bench.score.recompute import comparable, first_difference, replay_plan
    from bench.score.runner import run
    from bench.spec.load import discover, load_all
    from bench.store.records import read_records
    from bench.variables import find_root

    root = find_root()
    records = [UnitRecord.from_json(raw, str(args.folder)) for raw in read_records(args.folder / "results.jsonl")]
    chosen = [r for r in records if r.task_id in set(args.tasks)]
    missing = sorted(set(args.tasks) - {r.task_id for r in chosen})
    if missing:
        print(f"rescore_units: no unit of {', '.join(missing)} in {args.folder}", file=sys.stderr)
        return 2
    if not all(declares_deterministic(r.model) for r in chosen) or len({r.model for r in chosen}) != 1:
        print("rescore_units: only the units of one deterministic model can be scored again", file=sys.stderr)
        return 2
    specs = {s.task_id: s for s in load_all(discover(root, retired=True))}
    with tempfile.TemporaryDirectory(prefix="rescore-") as scratch:
        run(replay_plan(chosen, specs, Path(scratch), root, workers=args.workers, sandbox_name=args.sandbox))
        fresh = {name: {unit_of(line): line for line in (Path(scratch) / name).read_text().splitlines()
                        if line.strip()} for name in FILES if (Path(scratch) / name).is_file()}
    old = {unit_of(line): json.loads(line) for line in (args.folder / "results.jsonl").read_text().splitlines()
           if line.strip()}
    wanted = {r.key for r in chosen}
    if not wanted <= set(fresh.get("results.jsonl", {})):
        print("rescore_units: not every unit was scored again; nothing replaced", file=sys.stderr)
        return 1
    for name, lines in fresh.items():
        path = args.folder / name
        if path.is_file():
            kept = {unit: line for unit, line in lines.items() if unit in wanted}
            spliced, _ = splice(path.read_text(encoding="utf-8").splitlines(), kept)
            _write_atomically(path, spliced)
    for unit in sorted(wanted):
        where = first_difference(comparable(old[unit]), comparable(json.loads(fresh["results.jsonl"][unit])))
        print(f"{'identical' if where is None else 'changed':<10} {' '.join(map(str, unit))}"
              + (f" first difference at {where}" if where else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
