"""Certification throughput of an admission run: wall time per admitted task and where it went.

    python scripts/throughput.py docs/measurements/admission/admit-log-*.json

Reads the admission logs ``bench mine --admit`` writes (one entry per candidate tried: outcome, wall seconds,
phase seconds) and prints, per log and over all of them, the candidates tried and admitted, the median and 90th
percentile wall time of an admitted task's admission, the cost per admitted task with dropped candidates' time
shared out, the share of the admitted tasks' time spent building the image (first use), locking, building the
environment, preparing the workspaces and running the tests, and how many times its own 2K test runs (the physical
limit) an admission took. Informative figures of one run on a shared machine: nothing here is asserted.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src" / "python"))


def main(argv: list[str]) -> int:
    from bench.errors import BenchError
    from bench.mine.throughput import read_logs, summarise

    paths = tuple(Path(a) for a in argv)
    if not paths:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    try:
        rows = [(p.stem.removeprefix("admit-log-"), summarise(read_logs((p,)))) for p in paths]
        rows.append(("all", summarise(read_logs(paths))))
    except BenchError as error:
        print(f"throughput: {error}", file=sys.stderr)
        return 2
    phases = [name for name, _ in rows[-1][1].phase_share]
    print(f"{'log':<18} {'tried':>5} {'admit':>5} {'median s':>8} {'p90 s':>7} {'s/admit':>7} "
          + " ".join(f"{name:>11}" for name in phases) + f" {'tests s':>7} {'wall/tests':>10}")
    for name, t in rows:
        shares = dict(t.phase_share)
        print(f"{name:<18} {t.tried:>5} {t.admitted:>5} {t.median_seconds:>8.1f} {t.p90_seconds:>7.1f} "
              f"{t.seconds_per_admitted_all_attempts:>7.1f} "
              + " ".join(f"{shares[p]:>11.1%}" for p in phases)
              + f" {t.tests_median_seconds:>7.1f} {t.wall_over_tests_median:>10.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
