"""No answer in the environment, measured: search every file a scored run sees for the original code.

    python scripts/leak_scan.py [--releases all|N] [--pr SELECTOR] [--mirror DIR]

For every mutation release of the pool, one of its tasks is prepared exactly as `bench score` prepares it and
every file visible in its sandbox (image, venvs, overlay, work dir, less the masks; zip and wheel members too)
is searched for the released module of every task of that release and the released text of each mutated
function (``bench.verdict.leak_scan``). With ``--pr``, the selected PR tasks are searched for their fix
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


def release_needles(specs, scratch: Path) -> dict[str, bytes]:
    from bench.source.sdist import fetch_sdist, unpack_sdist
    from bench.verdict.leak_scan import mutation_needles

    tree = unpack_sdist(fetch_sdist(specs[0].sdist), scratch / "release")
    needles: dict[str, bytes] = {}
    for spec in specs:
        site = spec.mutation
        released = (tree / site.file).read_bytes()
        needles.update(mutation_needles(spec.task_id, released, site.start, site.end, site.file))
    return needles


def pr_needles(spec, scratch: Path, mirror) -> dict[str, bytes]:
    from bench.source.workspace import prepare

    base = prepare(spec, "base", scratch / "base", mirror=mirror).path
    fix = prepare(spec, "fix", scratch / "fix", mirror=mirror).path
    needles = {}
    for path in spec.source_files:
        fixed = (fix / path).read_bytes() if (fix / path).is_file() else b""
        if fixed and fixed != ((base / path).read_bytes() if (base / path).is_file() else b""):
            needles[f"{spec.task_id}: fixed {path}"] = fixed
    return needles


def scan_task(spec, needles: dict[str, bytes], scratch: Path, mirror) -> tuple:
    """The environment searched for every needle; the work dir for the prepared task's own (the other tasks
    of a release have their functions intact in it, as released)."""
    from bench.score.task_env import prepare_task
    from bench.verdict.leak_scan import environment_roots, scan
    from bench.verdict.masks import masks_for, task_packages

    task = prepare_task(spec, ROOT, scratch / "prepared", sandbox_name="bwrap", mirror=mirror)
    (scratch / "empty").mkdir()
    (scratch / "empty-file").write_bytes(b"")
    masks = masks_for(task.mounts, task.image_root, task_packages(spec.source_files),
                      empty_dir=scratch / "empty", empty_file=scratch / "empty-file")
    hidden = [m.sandbox_path for m in masks]
    own = {name: needle for name, needle in needles.items() if name.startswith(spec.task_id + ":")}
    return (scan(environment_roots(task.mounts, task.image_root), hidden, needles)
            + scan(((str(task.pristine), "/work"),), hidden, own))


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
            scratch = Path(scratch)
            needles = release_needles(group, scratch) if kind == "mutation" else pr_needles(group[0], scratch,
                                                                                             args.mirror)
            leaks = scan_task(group[0], needles, scratch, args.mirror)
        status = "clean" if not leaks else f"{len(leaks)} leak(s)"
        print(f"{label}: {len(needles)} needles, {status}", flush=True)
        for leak in leaks[:20]:
            print(f"  {leak.needle} at {leak.where}")
        passed, failed = passed + (not leaks), failed + bool(leaks)
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
