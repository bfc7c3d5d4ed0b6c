"""No answer in the environment, measured: search every file a scored run sees for the original code.

    python scripts/leak_scan.py [--releases all|N] [--pr SELECTOR] [--mirror DIR]

For every mutation release of the pool, one of its tasks is prepared exactly as `bench score` prepares it and
every file visible in its sandbox (image, venvs, overlay, work dir, less the masks; zip and wheel members too)
is searched for the released module of every task of that release and the released text of each mutated
function (``bench.score.no_leak``, ``bench.verdict.leak_scan``). With ``--pr``, the selected PR tasks are searched for their fix
commit's version of the changed source files (needs their repositories' mirrors). Prints each leak, then
``N passed, M failed`` (one unit per release or PR task).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src" / "python"))


def scan_unit(kind: str, group, scratch: Path, mirror) -> tuple[int, tuple]:
    from bench.score.no_leak import pr_needles, release_leaks, release_needles
    from bench.score.task_env import prepare_task

    needles = release_needles(group, scratch) if kind == "mutation" else pr_needles(group[0], scratch, mirror)
    task = prepare_task(group[0], ROOT, scratch / "prepared", sandbox_name="bwrap", mirror=mirror)
    return len(needles), release_leaks(task, group, needles, scratch)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--releases", default="all", help="all, or the first N releases")
    parser.add_argument("--pr", default="", help="a selector of PR tasks to search as well")
    parser.add_argument("--mirror", type=Path, default=None)
    args = parser.parse_args(argv)
    from bench.spec.load import discover, load_all, select

    specs = load_all(discover(ROOT))
    releases = defaultdict(list)
    for spec in specs:
        if spec.kind == "mutation":
            releases[(spec.sdist.name, spec.sdist.version)].append(spec)
    chosen = sorted(releases)
    if args.releases != "all":
        chosen = chosen[: int(args.releases)]
    units = [(f"{name}=={version}", releases[(name, version)], "mutation") for name, version in chosen]
    if args.pr:
        units += [(spec.task_id, [spec], "pr") for spec in select(specs, args.pr)]
    passed = failed = 0
    for label, group, kind in units:
        with tempfile.TemporaryDirectory(prefix="bench-leak-") as scratch:
            count, leaks = scan_unit(kind, group, Path(scratch), args.mirror)
        status = "clean" if not leaks else f"{len(leaks)} leak(s)"
        print(f"{label}: {count} needles, {status}", flush=True)
        for leak in leaks[:20]:
            print(f"  {leak.needle} at {leak.where}")
        passed, failed = passed + (not leaks), failed + bool(leaks)
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
