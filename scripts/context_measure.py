"""Prompt sizes and fix-location recall of each context policy over the pool's real tasks.

    python scripts/context_measure.py [--out FILE] [--tasks SELECTOR] [--workers N] [--tokenizer NAME]
    python scripts/context_measure.py --summary FILE

For every PR and mutation task: the failing tests are run once at base in the sandbox (what localization and
retrieval read), then ``bench prompt``'s prompt is built under each setting — ``files`` whole, and ``files``,
``localized`` and ``retrieval`` at 8,000 and 32,000 tokens — and counted with the tokenizer (default SmolLM2's,
``llamacpp/smollm2``). Only after the prompts exist does the script read where the fix is, and it never gives
that to the prompt builder: for a PR task, the lines of the base files that the fix commit changes (``git diff
-U0 base fix``; a pure insertion counts as the line it follows); for a mutation task, the mutated line. A
setting *recalls* a task when every fix line lies inside the lines its prompt shows (``any``: at least one).

One JSON line per task goes to ``--out`` as it finishes (a second run skips tasks already there), then the
summary: per setting, the prompt-token distribution, how many prompts exceed their budget (must be 0), how
many were cut, and the recall; and the bytes-per-token range of the tokenizer on the default prompts (what the
``estimate`` tokenizer's 3 bytes a token is checked against).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src" / "python"))
os.environ.setdefault("BENCH_ROOT", str(ROOT))

SETTINGS = (("files", None), ("files", 8000), ("localized", 8000), ("retrieval", 8000),
            ("files", 32000), ("localized", 32000), ("retrieval", 32000))


def measure(spec, tokenizer: str) -> dict:
    from bench.attempt.context import ContextSettings
    from bench.attempt.prompt import build_prompt
    from bench.cli.check import persistent_task
    from bench.model.tokenizers import count_messages, get_tokenizer
    from bench.score.attempt import base_failure_texts
    from bench.store.action_cache import ActionCache

    task = persistent_task(SimpleNamespace(task=spec.task_id, sandbox=None, mirror=None))
    failures = base_failure_texts(task, ActionCache("verdicts"))
    counter = get_tokenizer(tokenizer)
    rows = {}
    for policy, budget in SETTINGS:
        settings = ContextSettings(policy, budget, tokenizer)
        prompt = build_prompt(task.spec, task.pristine, spec_text=task.spec_text, context=settings,
                              failure_texts=failures)
        tokens = count_messages(counter, [m.content for m in prompt.messages])
        if prompt.shown is None:  # the default prompt: every editable file whole
            cut, ranges = False, {path: [[1, 10**9]] for path in task.spec.source_files}
        else:
            shown = prompt.shown.shown
            cut, ranges = shown.cut, {p: [list(r) for r in shown.ranges(p)] for p in task.spec.source_files}
        rows[f"{policy}@{budget or 'all'}"] = {
            "tokens": tokens, "cut": cut, "bytes": sum(len(m.content.encode()) for m in prompt.messages),
            "shown": ranges,
        }
    # Only now, after every prompt exists: where the fix is.
    fix = fix_lines(task.spec)
    for row in rows.values():
        row["recall_all"], row["recall_any"] = recall(fix, row.pop("shown"))
    return {"task_id": spec.task_id, "kind": spec.kind, "fix_lines": {p: list(v) for p, v in fix.items()},
            "failures": len(failures), "settings": rows}


def fix_lines(spec) -> dict[str, tuple[int, ...]]:
    if spec.kind == "mutation":
        return {spec.mutation.file: (spec.mutation.lineno,)}
    from bench.source.git import ensure_cache
    from bench.source.git_command import git

    cache = ensure_cache(spec).cache
    diff = git(["diff", "-U0", spec.base_sha, spec.fix_sha, "--", *spec.source_files], git_dir=cache)
    lines: dict[str, list[int]] = {}
    path = None
    for line in diff.decode("utf-8", "replace").splitlines():
        if line.startswith("--- "):
            path = line[6:] if line.startswith("--- a/") else None
        elif line.startswith("@@ ") and path is not None:
            old = line.split()[1].lstrip("-")
            start, _, count = old.partition(",")
            start, count = int(start), int(count or 1)
            span = range(start, start + count) if count else (max(1, start),)
            lines.setdefault(path, []).extend(span)
    return {p: tuple(sorted(set(v))) for p, v in lines.items()}


def recall(fix: dict[str, tuple[int, ...]], shown: dict[str, list[list[int]]]) -> tuple[bool, bool]:
    hits = [any(a <= line <= b for a, b in shown.get(path, ())) for path, lines in fix.items() for line in lines]
    return (bool(hits) and all(hits), any(hits))


def summary(rows: list[dict]) -> str:
    out = [f"{len(rows)} tasks ({sum(r['kind'] == 'pr' for r in rows)} PR, "
           f"{sum(r['kind'] == 'mutation' for r in rows)} mutation)"]
    header = f"{'setting':<16} {'min':>6} {'median':>7} {'p90':>7} {'max':>7} {'over':>5} {'cut':>5} " \
             f"{'recall':>7} {'any':>7}"
    out.append(header)
    for policy, budget in SETTINGS:
        key = f"{policy}@{budget or 'all'}"
        values = [r["settings"][key] for r in rows]
        tokens = sorted(v["tokens"] for v in values)
        over = sum(budget is not None and v["tokens"] > budget for v in values)
        p90 = tokens[min(len(tokens) - 1, int(0.9 * len(tokens)))]
        share = lambda field: f"{100 * sum(v[field] for v in values) / len(values):.1f}%"  # noqa: E731
        out.append(f"{key:<16} {tokens[0]:>6} {statistics.median(tokens):>7.0f} {p90:>7} {tokens[-1]:>7} "
                   f"{over:>5} {sum(v['cut'] for v in values):>5} {share('recall_all'):>7} {share('recall_any'):>7}")
    for kind in ("pr", "mutation"):
        subset = [r for r in rows if r["kind"] == kind]
        if subset:
            parts = [f"{key} {100 * sum(r['settings'][key]['recall_all'] for r in subset) / len(subset):.1f}%"
                     for key in ("files@all", "localized@8000", "retrieval@8000", "localized@32000")]
            out.append(f"recall, {kind} tasks only: " + ", ".join(parts))
    ratios = [r["settings"]["files@all"]["bytes"] / r["settings"]["files@all"]["tokens"] for r in rows]
    out.append(f"bytes per token (files@all): min {min(ratios):.2f}, median {statistics.median(ratios):.2f}, "
               f"max {max(ratios):.2f}")
    fits = sum(r["settings"]["files@all"]["tokens"] <= 8000 for r in rows)
    out.append(f"default prompts within 8,000 tokens: {fits} of {len(rows)}")
    return "\n".join(out)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("context-measure.jsonl"))
    parser.add_argument("--tasks", default=None, help="a task selector as bench score --tasks takes")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--tokenizer", default="llamacpp/smollm2")
    parser.add_argument("--summary", type=Path, default=None, help="only print the summary of a finished file")
    args = parser.parse_args(argv)
    if args.summary:
        print(summary([json.loads(line) for line in args.summary.read_text().splitlines() if line.strip()]))
        return 0
    from bench.spec.load import discover, load_all, select

    specs = [s for s in select(load_all(discover(ROOT)), args.tasks) if s.kind in ("pr", "mutation")]
    done = set()
    if args.out.exists():
        done = {json.loads(line)["task_id"] for line in args.out.read_text().splitlines() if line.strip()}
    todo = [s for s in specs if s.task_id not in done]
    print(f"{len(specs)} real tasks, {len(done)} measured before, {len(todo)} to go", file=sys.stderr)
    lock = threading.Lock()

    def one(spec) -> None:
        try:
            row = measure(spec, args.tokenizer)
        except Exception as exc:  # noqa: BLE001 — a task that cannot be measured is named, the rest go on
            print(f"{spec.task_id}: {type(exc).__name__}: {exc}", file=sys.stderr)
            return
        with lock, args.out.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(row, sort_keys=True) + "\n")

    with ThreadPoolExecutor(args.workers) as pool:
        list(pool.map(one, todo))
    rows = [json.loads(line) for line in args.out.read_text().splitlines() if line.strip()] \
        if args.out.exists() else []
    print(summary(rows) if rows else "no task could be measured")
    return 0 if len(rows) == len(specs) else 1


if __name__ == "__main__":
    sys.exit(main())
