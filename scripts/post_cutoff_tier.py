"""The post-cutoff tier: mutation tasks injected into releases uploaded in the last months, so that a model can be
scored on code published after its training cut-off. Run it again each month to add the newest releases.

    python scripts/post_cutoff_tier.py --dry-run          which release of each library the tier would use
    python scripts/post_cutoff_tier.py                    mutate and admit them (the gate, the giveaway rules,
                                                          the same K runs a side as the rest of the pool)
    python scripts/post_cutoff_tier.py --months 3 --per-library 8 toolz semver

For each library (default: every library of the pool's mutation tasks) it takes the newest final release whose
sdist the index dates inside the window, and runs ``bench mutate LIB==VER --admit`` with a cap that lets in at
most ``--per-library`` tasks dated inside the window (so a rerun resumes instead of adding more). Admission dates
each task by its release's upload (``provenance.released``). It ends with the tier as the pool now holds it:
``kind:mutation+after:<window start>`` — tasks, libraries, releases and their upload days.

BENCH (default: ./pants run src/python/bench:bench --) is the command that runs the harness CLI.
"""

from __future__ import annotations

import argparse
import datetime
import os
import shlex
import subprocess
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src" / "python"))

from bench.source.sdist import released_sdists  # noqa: E402
from bench.spec.load import discover, load_all  # noqa: E402


def window_start(today: datetime.date, months: int) -> str:
    """The day ``months`` calendar months before ``today`` (the last day of a shorter month where needed)."""
    month = today.month - months
    year = today.year + (month - 1) // 12
    month = (month - 1) % 12 + 1
    for day in range(today.day, 27, -1):
        try:
            return datetime.date(year, month, day).isoformat()
        except ValueError:
            continue
    return datetime.date(year, month, min(today.day, 28)).isoformat()


def newest_in_window(releases, start: str) -> tuple[str, str] | None:
    """Of (version, upload day) pairs, the highest version uploaded on or after ``start`` (a maintenance release
    of an older line uploaded last is not the newest code), or None."""
    from packaging.version import Version

    inside = [release for release in releases if release[1] >= start]
    return max(inside, key=lambda release: Version(release[0])) if inside else None


def tier(specs, start: str):
    return [s for s in specs if s.kind == "mutation" and s.date and s.date >= start]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("libraries", nargs="*", help="PyPI projects (default: the pool's mutation libraries)")
    parser.add_argument("--months", type=int, default=6, help="the window: releases uploaded this many months back")
    parser.add_argument("--per-library", type=int, default=5, help="tier tasks per library at most (default 5)")
    parser.add_argument("--limit", type=int, default=60, help="candidates made per release (default 60)")
    parser.add_argument("--dry-run", action="store_true", help="list the releases; mutate and admit nothing")
    args = parser.parse_args()
    if args.months < 1 or args.per_library < 1:
        parser.error("--months and --per-library must be at least 1")
    start = window_start(datetime.datetime.now(datetime.timezone.utc).date(), args.months)
    pool = load_all(discover(ROOT))
    libraries = args.libraries or sorted({s.sdist.name for s in pool if s.kind == "mutation"})
    print(f"window: releases uploaded on or after {start}", file=sys.stderr)
    chosen = []
    for library in libraries:
        found = newest_in_window(released_sdists(library), start)
        print(f"{library:<20} {'%s (uploaded %s)' % found if found else 'no release in the window'}")
        if found:
            chosen.append((library, found[0]))
    if args.dry_run:
        return 0
    bench = shlex.split(os.environ.get("BENCH", "./pants run src/python/bench:bench --"))
    failed = []
    for library, version in chosen:
        library_tasks = [s for s in load_all(discover(ROOT)) if s.kind == "mutation" and s.sdist.name == library]
        before = sum(1 for s in library_tasks if not (s.date and s.date >= start))
        command = [*bench, "mutate", f"{library}=={version}", "--limit", str(args.limit), "--admit",
                   "--cap", str(before + args.per_library)]
        print(f"== {shlex.join(command)}", file=sys.stderr)
        if subprocess.run(command, cwd=ROOT).returncode not in (0, 1):  # 1: some candidates were dropped
            failed.append(f"{library}=={version}")
    report(tier(load_all(discover(ROOT)), start), start)
    if failed:
        print(f"not admitted for an error (see above): {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


def report(tasks, start: str) -> None:
    releases = Counter((s.sdist.name, s.sdist.version, s.date) for s in tasks)
    print(f"\npost-cutoff tier (kind:mutation+after:{start}): {len(tasks)} tasks from "
          f"{len({s.sdist.name for s in tasks})} libraries, {len(releases)} releases")
    for (name, version, day), count in sorted(releases.items()):
        print(f"  {name}=={version:<12} uploaded {day}  {count:>3} tasks")


if __name__ == "__main__":
    sys.exit(main())
