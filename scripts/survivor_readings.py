"""Near misses that survive the tests and the probes, read by hand: equivalent to the fix, or a wrong fix missed.

    python scripts/survivor_readings.py material OUT [SELECTOR] [--unread]
                                                 one Markdown file a survivor (--unread: only those no reading
                                                 has yet, after a new probe version), and its trees
    python scripts/survivor_readings.py import TABLE.md --reading LABEL
    python scripts/survivor_readings.py show [SELECTOR]             the record's verdicts, survivor by survivor

A surviving near miss is a one-site change of the fix that every certified test passes and every probe answers
as the fix does (``results/probes/<task>.json``, ``near_misses.equivalent``). Either it is truly equivalent to the
fix (``len(ordered)`` for ``len(xs)`` where one is the sorted copy of the other), or it is wrong and neither the
tests nor the generated inputs reach the input that shows it. Only a reading tells which. A reader follows
``docs/measurements/survivor-reading-brief.md`` and writes one row a survivor:
``| # | survivor | verdict | input | why |`` with the verdict ``equivalent`` or ``differs``.

``import`` keeps each row in ``results/adequacy/survivor-readings.json`` under the survivor's identity (task,
file, operator, line, byte span), beside the other readings of it. ``scripts/probe_adequacy.py`` then also
counts the tasks whose every surviving near miss two readings or more call equivalent, and no reading calls
wrong. The material holds the fix's function with the near miss's line marked, the task's source and test files
as the reference has them (``trees/<task>/``), and the probed functions; PR tasks need ``BENCH_MIRROR_DIR``.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src" / "python"))

RECORD = Path("results") / "adequacy" / "survivor-readings.json"
VERDICTS = ("equivalent", "differs")
UNESCAPED_PIPE = re.compile(r"(?<!\\)\|")


def survivor_key(task_id: str, identity) -> str:
    """One survivor's name in the record and in a reader's table: task and file:line operator [start:end]."""
    file, operator, lineno, start, end = identity[:5]
    return f"{task_id} {file}:{lineno} {operator} [{start}:{end}]"


def survivors(specs) -> list[tuple]:
    """(spec, identity with the replacement the probes accept) of every survivor the probes do not kill."""
    from bench.probes import store

    found = []
    for spec in specs:
        summary = store.current(ROOT, [spec.task_id])[spec.task_id]
        if summary is not None and summary.near_misses is not None:
            found += [(spec, tuple(e)) for e in summary.near_misses.equivalent]
    return found


def unread_only(found: list[tuple], record: dict) -> list[tuple]:
    """The survivors of ``found`` that no reading in ``record`` has named yet."""
    return [(spec, identity) for spec, identity in found if not record.get(survivor_key(spec.task_id, identity))]


def read_record(root: Path = ROOT) -> dict:
    path = root / RECORD
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}


def read_equivalent(record: dict, key: str) -> bool:
    """Two readings or more, and every one of them calls the survivor equivalent."""
    verdicts = [entry["verdict"] for entry in record.get(key, [])]
    return len(verdicts) >= 2 and all(v == "equivalent" for v in verdicts)


# --- material -------------------------------------------------------------------------------------------------


def enclosing_function(text: str, lineno: int) -> tuple[int, int, str]:
    """(first line, last line, qualified name) of the innermost function holding ``lineno``; the module otherwise."""
    best = (1, len(text.splitlines()), "<module>")
    stack: list[tuple[ast.AST, str]] = [(ast.parse(text), "")]
    while stack:
        node, prefix = stack.pop()
        for child in ast.iter_child_nodes(node):
            name = getattr(child, "name", None)
            qual = f"{prefix}.{name}" if prefix and name else (name or prefix)
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) and child.lineno <= lineno <= child.end_lineno:
                first = min([child.lineno] + [d.lineno for d in child.decorator_list])
                best = (first, child.end_lineno, qual)
            stack.append((child, qual))
    return best


def material_text(number: int, spec, identity, fixed: Path, probed: list[str]) -> str:
    file, operator, lineno, start, end, replacement = identity
    data = (fixed / file).read_bytes()
    line_start, line_end = data.rfind(b"\n", 0, start) + 1, data.find(b"\n", end)
    line = data[line_start:line_end].decode("utf-8", "replace")
    changed = line[: start - line_start] + replacement + line[end - line_start:]
    text = data.decode("utf-8", "replace")
    first, last, name = enclosing_function(text, lineno)
    lines = text.splitlines()
    shown = range(max(first, lineno - 80), min(last, lineno + 40) + 1)
    body = "\n".join(f"{'>>' if n == lineno else '  '} {n:5d}  {lines[n - 1]}" for n in shown)
    return (f"# {number}. {survivor_key(spec.task_id, identity)}\n\n"
            f"- task: `{spec.task_id}` ({spec.kind}); the fix's source and test files: `trees/{spec.task_id}/`\n"
            f"- near miss: `{operator}` at `{file}:{lineno}`, in `{name}`\n"
            f"- fix:       `{line.strip()}`\n- near miss: `{changed.strip()}`\n"
            f"- the task's tests: {', '.join(f'`{t}`' for t in spec.test_files)}\n"
            f"- the functions the probes call (qualified names): {', '.join(f'`{q}`' for q in probed) or 'none'}\n\n"
            f"## `{name}` in the fix (`>>` marks the near miss's line)\n\n```python\n{body}\n```\n")


def do_material(out: Path, selector: str, unread: bool = False) -> int:
    from bench.probes import store
    from bench.source.workspace import prepare
    from bench.spec.load import discover, load_all, select

    found = survivors(select(load_all(discover(ROOT)), selector))
    if unread:
        found = unread_only(found, read_record())
    out.mkdir(parents=True, exist_ok=True)
    trees: dict[str, Path] = {}
    with tempfile.TemporaryDirectory(prefix="bench-survivors-") as scratch:
        for number, (spec, identity) in enumerate(found, 1):
            if spec.task_id not in trees:
                fixed = prepare(spec, "fix", Path(scratch) / spec.task_id).path
                kept = out / "trees" / spec.task_id
                for relative in (*spec.source_files, *spec.test_files):
                    if (fixed / relative).is_file():
                        (kept / relative).parent.mkdir(parents=True, exist_ok=True)
                        shutil.copy2(fixed / relative, kept / relative)
                trees[spec.task_id] = kept
            summary = store.current(ROOT, [spec.task_id])[spec.task_id]
            probed = sorted({t[1] for t in summary.targets if t[-1]}) if summary else []
            text = material_text(number, spec, identity, trees[spec.task_id], probed)
            (out / f"{number:03d}-{spec.task_id}.md").write_text(text, encoding="utf-8")
    print(f"{len(found)} survivors of {len(trees)} tasks -> {out}")
    return 0


# --- the record ------------------------------------------------------------------------------------------------


def table_rows(text: str):
    """(survivor key, verdict, input, why) of each numbered row of a reader's table."""
    for line in text.splitlines():
        cells = [c.strip() for c in UNESCAPED_PIPE.split(line)[1:-1]]
        if len(cells) >= 5 and cells[0].isdigit():
            verdict = cells[2].strip("*` ").lower()
            if verdict not in VERDICTS:
                raise SystemExit(f"survivor_readings: row {cells[0]}: verdict {cells[2]!r} is not one of {VERDICTS}")
            yield cells[1].strip("` "), verdict, cells[3], cells[4]


def do_import(table: Path, label: str) -> int:
    from bench.spec.load import discover, load_all
    from bench.store.atomic import write_atomic

    known = {survivor_key(spec.task_id, identity) for spec, identity in survivors(load_all(discover(ROOT)))}
    rows = list(table_rows(table.read_text(encoding="utf-8")))
    strays = [key for key, *_ in rows if key not in known]
    if strays:
        raise SystemExit(f"survivor_readings: {table}: survivors not in the current summaries: {strays[:3]}")
    record = read_record()
    for key, verdict, given, why in rows:
        kept = [entry for entry in record.get(key, []) if entry["reading"] != label]
        record[key] = kept + [{"reading": label, "verdict": verdict, "input": given, "why": why}]
    text = json.dumps(dict(sorted(record.items())), indent=1, ensure_ascii=False) + "\n"
    (ROOT / RECORD).parent.mkdir(parents=True, exist_ok=True)
    write_atomic(ROOT / RECORD, text.encode("utf-8"))
    print(f"{len(rows)} read: {sum(v == 'equivalent' for _, v, _, _ in rows)} equivalent, "
          f"{sum(v == 'differs' for _, v, _, _ in rows)} differ")
    return 0


def do_show(selector: str) -> int:
    from bench.spec.load import discover, load_all, select

    record = read_record()
    for spec, identity in survivors(select(load_all(discover(ROOT)), selector)):
        key = survivor_key(spec.task_id, identity)
        verdicts = ", ".join(f"{e['reading']}: {e['verdict']}" for e in record.get(key, [])) or "unread"
        print(f"{key}: {verdicts}")
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    material = sub.add_parser("material")
    material.add_argument("out", type=Path)
    material.add_argument("selector", nargs="?", default="all")
    material.add_argument("--unread", action="store_true", help="only the survivors no reading has yet")
    imported = sub.add_parser("import")
    imported.add_argument("table", type=Path)
    imported.add_argument("--reading", required=True)
    show = sub.add_parser("show")
    show.add_argument("selector", nargs="?", default="all")
    args = parser.parse_args(argv)
    if args.command == "material":
        return do_material(args.out, args.selector, args.unread)
    if args.command == "import":
        return do_import(args.table, args.reading)
    return do_show(args.selector)


if __name__ == "__main__":
    sys.exit(main())
