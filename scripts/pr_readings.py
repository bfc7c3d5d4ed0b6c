"""Read the PR pool by hand, twice: reading material, the unread list, and verdict tables into the record.

    python scripts/pr_readings.py unread [--drops]             pool PR tasks without two readings
    python scripts/pr_readings.py material OUT [TASK ...]      one Markdown file per task (default: the unread)
    python scripts/pr_readings.py import TABLE.md --reading LABEL [--retire]

``--drops`` works on the candidates admission dropped as ``not_a_bugfix:unclear`` (nothing but the title called
them fixes) whose drop record keeps the tests they flip: read twice and found a real bug by both readings,
``bench mine REPO --admit --retry not_a_bugfix:unclear`` admits them (the judgement takes the readings as its
evidence); read false, they stay dropped.

A reader follows docs/measurements/pr-reading-brief.md (criteria R1–R4) and writes one table row per task:
``| # | task | verdict | why |`` with a verdict ``good``, ``questionable: Rn`` or ``false: Rn``. ``import`` adds
each row to ``tasks/_readings/pr.json`` (``bench.gate.pr_readings``; beside the task's other readings, replacing
one of the same name) and, with ``--retire``, moves every task a reading calls false out of the pool into
``tasks/_retired/<library>/`` (``git mv``) and rewrites the tasks' BUILD files (``bench pool sync-build``).

The material (``bench.gate.pr_material``) is read from the repositories' mirrors (``BENCH_MIRROR_DIR``, else
the harness's clone cache): the fix's commit messages, the diff of its source and test files, the fail_to_pass
tests' source at the fix, the changelog lines near the fix, later commits that change those tests again, and
the prompt exactly as ``bench prompt TASK`` prints it. It holds third-party code: write it outside the checkout
(e.g. /tmp/pr-material) and never commit it. The spec's judgement is left out, so a reader decides first.
``BENCH_ROOT`` names another checkout to work on (the tests use a scratch one).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

SCRIPT_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(SCRIPT_ROOT / "src" / "python"))
ROOT = Path(os.environ.get("BENCH_ROOT") or SCRIPT_ROOT).resolve()

from bench.errors import BenchError  # noqa: E402
from bench.gate import pr_readings  # noqa: E402


def pr_specs(retired: bool = False, drops: bool = False):
    """The pool's PR tasks; with ``retired`` the retired ones too; with ``drops`` also the candidates dropped
    only for want of evidence beyond their title (``pr_readings.readable_drops``)."""
    from bench.spec.load import discover, load_all

    specs = [s for s in load_all(discover(ROOT, retired=retired)) if s.kind == "pr"]
    return specs + (pr_readings.readable_drops(ROOT) if drops else [])


def unread(drops: bool = False) -> list[str]:
    """The pool's PR tasks without two readings; with ``drops``, the readable drops without them instead."""
    ids = [s.task_id for s in (pr_readings.readable_drops(ROOT) if drops else pr_specs())]
    return pr_readings.unread(pr_readings.load(ROOT), ids)


def do_import(table: Path, label: str, retire: bool) -> int:
    from bench.store.atomic import write_atomic

    known = {s.task_id for s in pr_specs(retired=True, drops=True)}
    rows = pr_readings.table_rows(table.read_text(encoding="utf-8"), where=str(table))
    strays = [task for task, _, _ in rows if task not in known]
    if strays:
        raise SystemExit(f"pr_readings: {table}: not PR tasks of this checkout: {strays[:5]}")
    record = pr_readings.merge(pr_readings.load_record(ROOT), rows, label)
    (ROOT / pr_readings.RECORD).parent.mkdir(parents=True, exist_ok=True)
    write_atomic(ROOT / pr_readings.RECORD, pr_readings.render(record).encode("utf-8"))
    false = [task for task, verdict, _ in rows if verdict.startswith("false")]
    print(f"{len(rows)} read as {label!r}: {len(false)} false, "
          f"{sum(v.startswith('questionable') for _, v, _ in rows)} questionable")
    if retire and false:
        retire_tasks(false)
    return 0


def retire_tasks(task_ids: list[str]) -> None:
    """Move each task out of the pool into tasks/_retired/<its folder>/ (git mv when tracked), then rewrite
    the BUILD files of the pool's folders."""
    from bench.spec.retire import retire_spec

    in_pool = {s.task_id: s for s in pr_specs()}
    for task in task_ids:
        if task not in in_pool:
            continue
        retire_spec(ROOT, Path(in_pool[task].path))
        print(f"retired {task}")
    from bench.gate.pants_targets import sync
    from bench.spec.load import discover, load_all

    for path in sync(load_all(discover(ROOT))):
        print(f"wrote {path.relative_to(ROOT)}")


def prompt_of(spec) -> str:
    """What ``bench prompt TASK`` prints (the default prompt), built from the task's workspace alone: the default
    prompt reads only the base tree with the fix's tests overlaid, so no environment or certificate is needed
    (``bench prompt`` prepares the whole task first, minutes for a task never prepared on the machine)."""
    import tempfile

    from bench.attempt.prompt import build_prompt
    from bench.source.workspace import prepare
    from bench.spec.kind_registry import get_kind

    with tempfile.TemporaryDirectory(prefix="pr-reading-") as scratch:
        tree = prepare(spec, "base", Path(scratch) / "tree").path
        prompt = build_prompt(spec, tree, spec_text=get_kind(spec.kind).specification_text(spec, ROOT))
    return "".join(f"===== {m.role} =====\n{m.content}\n" for m in prompt.messages)


def material(out: Path, ids: list[str]) -> int:
    from bench.gate.pr_material import material as material_text
    from bench.source.git import ensure_cache, mirror_for

    if out.resolve().is_relative_to(ROOT):
        raise SystemExit(f"pr_readings: {out} is inside the checkout; the material holds third-party code, "
                         "write it elsewhere (e.g. /tmp/pr-material)")
    specs = {s.task_id: s for s in pr_specs(retired=True, drops=True)}
    unknown = [t for t in ids if t not in specs]
    if unknown:
        raise SystemExit(f"pr_readings: not PR tasks of this checkout: {unknown[:5]}")
    out.mkdir(parents=True, exist_ok=True)
    for task in ids:
        started = time.monotonic()
        spec = specs[task]
        cache = ensure_cache(spec).cache  # both commits, fetched from the mirror when it lacks them
        git_dir = mirror_for(spec.repo) or cache  # the mirror also has the history after the fix
        text = material_text(spec, git_dir, prompt_of(spec))
        (out / f"{task}.md").write_text(text, encoding="utf-8")
        print(f"{task}: {len(text.encode()) / 1024:.0f} KB in {time.monotonic() - started:.1f}s", file=sys.stderr)
    print(f"wrote {len(ids)} files into {out}")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="action", required=True)
    p = sub.add_parser("unread", help="pool PR tasks without two readings")
    p.add_argument("--drops", action="store_true",
                   help="the candidates dropped as not_a_bugfix:unclear (a fix by title only) instead")
    p = sub.add_parser("material", help="one Markdown file per task")
    p.add_argument("out", type=Path, help="a folder outside the checkout")
    p.add_argument("tasks", nargs="*", help="task ids (default: the unread)")
    p.add_argument("--drops", action="store_true", help="default to the unread readable drops")
    p = sub.add_parser("import", help="record a reader's table")
    p.add_argument("table", type=Path)
    p.add_argument("--reading", required=True, help="the reading's name, e.g. 'reader A (2026-12-06)'")
    p.add_argument("--retire", action="store_true", help="move the tasks read false out of the pool")
    args = parser.parse_args()
    try:
        if args.action == "unread":
            print("\n".join(unread(args.drops)))
            return 0
        if args.action == "material":
            return material(args.out, args.tasks or unread(args.drops))
        return do_import(args.table, args.reading, args.retire)
    except BenchError as exc:
        print(f"pr_readings: {exc}", file=sys.stderr)
        return exc.exit_code


if __name__ == "__main__":
    sys.exit(main())
