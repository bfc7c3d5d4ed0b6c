"""Read the mutation pool by hand: reading material, the unread list, and verdict tables into the record.

    python scripts/hand_readings.py unread                       pool mutation tasks no one has read
    python scripts/hand_readings.py material OUT [TASK ...]      one Markdown file per task (default: the unread)
    python scripts/hand_readings.py import TABLE.md --reading LABEL [--retire]

A reader follows docs/measurements/mutation-reading-brief.md (rule G1–G5) and writes one table row per task:
``| # | task | operator | giveaway | why |``. ``import`` adds each row to ``tasks/_readings/mutation.json``
(``bench.mutate.readings``; beside the task's other readings, replacing one of the same name) and, with
``--retire``, moves every task a reading calls a giveaway out of the pool into ``tasks/_retired/mutation-<library>/`` (``git mv``); run
``bench pool sync-build`` afterwards. The material holds the mutant diff with 25 lines of context and the path
of the released file (the pinned sdist, unpacked into the harness's cache), never the prompt.
"""

from __future__ import annotations

import argparse
import difflib
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src" / "python"))

from bench.mutate import readings  # noqa: E402

UNESCAPED_PIPE = re.compile(r"(?<!\\)\|")
GRADE = re.compile(r"G([1-5])")


def normalise(verdict: str) -> str:
    """A reader's verdict cell as the record writes it: 'no', 'no (borderline)', 'yes[ (borderline)]: Gn'."""
    low = verdict.strip().lower()
    grade = GRADE.search(verdict)
    if low.startswith("no"):
        return "no (borderline)" if "borderline" in low else "no"
    if low.startswith("yes") and grade:
        return f"yes{' (borderline)' if 'borderline' in low else ''}: G{grade.group(1)}"
    raise SystemExit(f"hand_readings: cannot read the verdict {verdict!r} (want no, no (borderline) or yes: Gn)")


def table_rows(text: str):
    """(task, verdict, why) of each numbered row of a reader's table."""
    for line in text.splitlines():
        cells = [c.strip() for c in UNESCAPED_PIPE.split(line)[1:-1]]
        if len(cells) >= 5 and cells[0].isdigit():
            yield cells[1], normalise(cells[3]), cells[4]


def pool_specs(retired: bool = False):
    from bench.spec.load import discover, load_all

    return [s for s in load_all(discover(ROOT, retired=retired)) if s.kind == "mutation"]


def write_record(entries: dict) -> None:
    from bench.store.atomic import write_atomic

    text = json.dumps(dict(sorted(entries.items())), indent=1, ensure_ascii=False) + "\n"
    readings.parse(json.loads(text))  # never write a record the loader refuses
    (ROOT / readings.RECORD).parent.mkdir(parents=True, exist_ok=True)
    write_atomic(ROOT / readings.RECORD, text.encode("utf-8"))


def do_import(table: Path, label: str, retire: bool) -> int:
    known = {s.task_id: s for s in pool_specs(retired=True)}
    rows = list(table_rows(table.read_text(encoding="utf-8")))
    strays = [task for task, _, _ in rows if task not in known]
    if strays:
        raise SystemExit(f"hand_readings: {table}: unknown tasks {strays[:5]}")
    record = json.loads((ROOT / readings.RECORD).read_text(encoding="utf-8")) if (ROOT / readings.RECORD).exists() else {}
    for task, verdict, why in rows:
        kept = [entry for entry in record.get(task, []) if entry["reading"] != label]
        record[task] = kept + [{"reading": label, "verdict": verdict, "why": why}]
    write_record(record)
    giveaways = [task for task, verdict, _ in rows if verdict.startswith("yes")]
    print(f"{len(rows)} read, {len(giveaways)} giveaways")
    if retire:
        from bench.spec.retire import retire_spec

        in_pool = {s.task_id: s for s in pool_specs()}
        for task in giveaways:
            if task in in_pool:
                retire_spec(ROOT, Path(in_pool[task].path))
                print(f"retired {task}")
    return 0


def material(out: Path, ids: list[str]) -> int:
    from bench.source.sdist import fetch_sdist, unpack_sdist
    from bench.variables import cache_dir

    specs = {s.task_id: s for s in pool_specs(retired=True)}
    out.mkdir(parents=True, exist_ok=True)
    for task in ids:
        spec, m = specs[task], specs[task].mutation
        tree = cache_dir() / "readings" / f"{spec.sdist.name}-{spec.sdist.version}"
        if not tree.exists():  # the pinned sdist (sha256-checked), unpacked once per release
            unpack_sdist(fetch_sdist(spec.sdist), tree)
        data = (tree / m.file).read_bytes()
        mutant = data[: m.start] + m.replacement.encode() + data[m.end:]
        diff = "".join(difflib.unified_diff(data.decode().splitlines(True), mutant.decode().splitlines(True),
                                            f"a/{m.file}", f"b/{m.file}", n=25))
        (out / f"{task}.md").write_text(f"# {task}\n\nReleased file (original, unmutated): {tree / m.file}\n\n"
                                        f"operator: {m.operator}; function: {m.function}\n\n"
                                        f"## Mutant diff (original -> mutant)\n\n```diff\n{diff}```\n")
    print(f"wrote {len(ids)} files into {out}")
    return 0


def unread() -> list[str]:
    found = readings.load(ROOT)
    return sorted(s.task_id for s in pool_specs() if s.task_id not in found)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="action", required=True)
    sub.add_parser("unread")
    p = sub.add_parser("material")
    p.add_argument("out", type=Path)
    p.add_argument("tasks", nargs="*")
    p = sub.add_parser("import")
    p.add_argument("table", type=Path)
    p.add_argument("--reading", required=True, help="the reading's name, e.g. 'screen of 2026-12-03'")
    p.add_argument("--retire", action="store_true", help="move the giveaways out of the pool")
    args = parser.parse_args()
    if args.action == "unread":
        print("\n".join(unread()))
        return 0
    if args.action == "material":
        return material(args.out, args.tasks or unread())
    return do_import(args.table, args.reading, args.retire)


if __name__ == "__main__":
    sys.exit(main())
