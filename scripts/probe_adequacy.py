"""Adequacy with probes, by kind: of the near misses a task's tests let through, how many its probes kill.

    python scripts/probe_adequacy.py [SELECTOR] [--read N --seed S]

Reads the committed summaries (``results/probes/``, written by ``bench probes``, each bound to its task's
certificate) and prints, per kind: the tasks summarised, those where near misses of the fix could be made and
were measured, the tasks whose tests let one through (``results/adequacy/``), the survivors, how many the probes
kill, and the tasks where some near miss survives the tests *and* the probes, as a share of the measured tasks.
With ``--read N`` it draws N of the survivors the probes do not kill (seeded) and shows each near miss's line
with its change, to be read by hand: truly equivalent to the fix, or a difference the probes never reach. That
reading lays out the task's reference tree (PR tasks need their mirrors: ``BENCH_MIRROR_DIR``); nothing of it is
written anywhere.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src" / "python"))
sys.path.insert(0, str(ROOT / "scripts"))


def table(specs) -> list[dict]:
    from bench.gate import adequacy_store
    from bench.probes import store
    from survivor_readings import read_equivalent, read_record, survivor_key

    record = read_record(ROOT)
    rows: dict[str, dict] = defaultdict(lambda: {"summarised": 0, "measured": 0, "weak_tests": 0, "survivors": 0,
                                                 "killed": 0, "still_weak": 0, "read_equivalent": 0,
                                                 "wrong_left": 0, "no_probes": 0})
    for spec in specs:
        summary = store.current(ROOT, [spec.task_id])[spec.task_id]
        adequacy = adequacy_store.read_current(ROOT, spec.task_id)
        if summary is None:
            continue
        row = rows[spec.kind]
        row["summarised"] += 1
        row["no_probes"] += summary.probes == 0
        if adequacy is None or not adequacy.run:
            continue
        row["measured"] += 1
        near = summary.near_misses
        if near is not None and near.survivors:
            row["weak_tests"] += 1
            row["survivors"] += near.survivors
            row["killed"] += len(near.killed)
            row["still_weak"] += bool(near.equivalent)
            equivalent = [read_equivalent(record, survivor_key(spec.task_id, e)) for e in near.equivalent]
            row["read_equivalent"] += sum(equivalent)
            row["wrong_left"] += not all(equivalent)
    return [{"kind": kind, **row} for kind, row in sorted(rows.items())]


def print_table(rows: list[dict]) -> None:
    print(f"{'kind':<10} {'summarised':>10} {'no probes':>9} {'measured':>8} {'tests let one through':>21} "
          f"{'survivors':>9} {'killed by probes':>16} {'still weak (share of measured)':>31} "
          f"{'read equivalent':>15} {'weak, read equivalent aside':>27}")
    total: dict = defaultdict(int)
    for row in rows + [None]:
        if row is None:
            row = {"kind": "all", **total}
        else:
            for key, value in row.items():
                if key != "kind":
                    total[key] += value
        measured = row["measured"] or 1
        kill = f"{row['killed']} ({row['killed'] / (row['survivors'] or 1):.0%})"
        weak = f"{row['still_weak']} ({row['still_weak'] / measured:.0%})"
        left = f"{row['wrong_left']} ({row['wrong_left'] / measured:.0%})"
        print(f"{row['kind']:<10} {row['summarised']:>10} {row['no_probes']:>9} {row['measured']:>8} "
              f"{row['weak_tests']:>21} {row['survivors']:>9} {kill:>16} {weak:>31} {row['read_equivalent']:>15} "
              f"{left:>27}")


def read_sample(specs, count: int, seed: int) -> None:
    from bench.gate.adequacy import near_misses_of
    from bench.probes import store
    from bench.source.workspace import prepare

    pool = []
    for spec in specs:
        summary = store.current(ROOT, [spec.task_id])[spec.task_id]
        if summary is not None and summary.near_misses is not None:
            pool += [(spec, tuple(e)) for e in summary.near_misses.equivalent]
    pool.sort(key=lambda item: hashlib.sha256(f"{seed}|{item[0].task_id}|{item[1]}".encode()).hexdigest())
    for spec, identity in pool[:count]:
        with tempfile.TemporaryDirectory(prefix="bench-read-") as scratch:
            fixed = prepare(spec, "fix", Path(scratch) / "fix").path
            base = prepare(spec, "base", Path(scratch) / "base").path
            _, chosen = near_misses_of(spec, fixed, base)
            print(f"{spec.task_id}: {'no probes: any near miss of this span' if not identity[5] else 'equivalent on probes'}")
            for candidate in chosen:
                site = candidate.site
                if (site.file, site.operator, site.lineno, site.start, site.end) != identity[:5] or (
                        identity[5] and site.replacement != identity[5]):
                    continue
                data = (fixed / site.file).read_bytes()
                start, end = data.rfind(b"\n", 0, site.start) + 1, data.find(b"\n", site.end)
                line = data[start:end].decode("utf-8", "replace")
                changed = line[: site.start - start] + site.replacement + line[site.end - start:]
                print(f"    {site.file}:{site.lineno} {site.operator} ({site.function})")
                print(f"      fix:       {line.strip()}\n      near miss: {changed.strip()}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("selector", nargs="?", default="all")
    parser.add_argument("--read", type=int, default=0, help="draw this many surviving near misses to read")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    from bench.spec.load import discover, load_all, select

    specs = select(load_all(discover(ROOT)), args.selector)
    print_table(table(specs))
    if args.read:
        print()
        read_sample(specs, args.read, args.seed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
