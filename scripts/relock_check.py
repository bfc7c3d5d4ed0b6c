"""Resolve tasks' locks again from nothing and compare them with the committed ones, byte for byte.

    BENCH_MIRROR_DIR=/mirrors python scripts/relock_check.py 'voluptuous-*' 'mistune-*'

Each task's lock is resolved as admission resolves it (its base, its cut-off), with the stored resolutions and
remembered compiles (bench.environment.resolution_share, compile_cache) pointed at empty folders, so pip-compile
runs for every lock: what a lock that admission shared or remembered would have been had it resolved it alone.
A lock admission resolved again with later releases of some packages (its first environment failed to build;
the header's floor line names them) is compared with one resolved with the same. Prints one line a task
(same, or where the texts part) and exits 1 when any differs. The index changes with
time (a yanked release, a file uploaded since), so a lock resolved long ago may part for that reason: the line
names the first differing line.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src" / "python"))


def first_difference(old: str, new: str) -> str:
    for number, (a, b) in enumerate(zip(old.splitlines(), new.splitlines()), 1):
        if a != b:
            return f"line {number}: {a.strip()[:80]!r} -> {b.strip()[:80]!r}"
    return f"lengths {len(old.splitlines())} -> {len(new.splitlines())} lines"


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    from bench.environment import build_floor, compile_cache, resolution_share
    from bench.errors import BenchError
    from bench.gate.admit import lock_candidate
    from bench.spec.load import discover, load_all, select

    pool = load_all(discover(ROOT))
    chosen = {s.task_id: s for pattern in argv for s in select(pool, pattern) if s.kind != "synthetic"}
    specs = list(chosen.values())
    differ = 0
    with tempfile.TemporaryDirectory(prefix="relock-check-") as scratch:
        empty = Path(scratch)
        resolution_share.default_store = lambda: resolution_share.Store(empty / "resolutions")
        compile_cache.default_store = lambda: empty / "compiles"
        (empty / "lockfiles" / "tasks").mkdir(parents=True)
        (empty / "images").symlink_to(ROOT / "images")
        for spec in specs:
            committed = (ROOT / spec.lockfile).read_text(encoding="utf-8")
            try:
                fresh = lock_candidate(spec, empty, sandbox_name="bwrap", mirror=None).read_text(encoding="utf-8")
                late = build_floor.late_from_header(committed)  # resolved with later releases of some packages
                if fresh != committed and late:
                    fresh = lock_candidate(spec, empty, sandbox_name="bwrap", mirror=None,
                                           late=late).read_text(encoding="utf-8")
            except BenchError as error:
                print(f"{spec.task_id}: cannot resolve: {str(error).splitlines()[0][:160]}")
                differ += 1
                continue
            if fresh == committed:
                print(f"{spec.task_id}: same")
            else:
                differ += 1
                print(f"{spec.task_id}: differs, {first_difference(committed, fresh)}")
    print(f"{len(specs)} locks resolved again: {len(specs) - differ} the same, {differ} not")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
