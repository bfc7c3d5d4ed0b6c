"""`bench validate [PATHS]`: check task specs (and, with --synthetic, the synthetic suite's soundness)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

EPILOG = """examples:
  bench validate                      every spec under tasks/
  bench validate tasks/click/click-2345.json
  bench validate --synthetic          also run each synthetic task's reference and initial code
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("validate", help="validate task specs", epilog=EPILOG,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("paths", nargs="*", type=Path, help="spec files or folders (default: tasks/)")
    p.add_argument("--synthetic", action="store_true",
                   help="soundness: reference passes every hidden test, initial code fails at least one")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from bench.errors import SpecError
    from bench.spec.load import discover
    from bench.variables import find_root

    root = find_root()
    paths = _expand(args.paths) if args.paths else discover(root)
    if not paths:
        raise SpecError("no spec files found", kind="no_specs")
    specs, problems = check_files(paths, root)
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        raise SpecError(f"{len(problems)} of {len(paths)} spec files invalid (each listed above)", kind="invalid_specs")
    print(f"{len(specs)} specs valid", file=sys.stderr)
    if args.synthetic:
        return _soundness([s for s in specs if s.kind == "synthetic"])
    return 0


def check_files(paths, root: Path) -> tuple[list, list[str]]:
    """Every file checked in full (not only up to the first bad one): the specs that pass, and one line per
    problem — schema and rules, duplicate ids, and a lockfile or image the checkout does not have."""
    from bench.errors import SpecError
    from bench.spec.load import load_spec

    specs, problems, seen = [], [], {}
    for path in paths:
        try:
            spec = load_spec(path, revalidate=True)  # `validate` always checks in full
        except SpecError as exc:
            problems.append(str(exc))
            continue
        missing = [what for what, there in (("lockfile", root / spec.lockfile),
                                            ("image", root / "images" / spec.image)) if not there.exists()]
        if spec.task_id in seen:
            problems.append(f"{path}: duplicate_id: task id {spec.task_id!r} also defined in {seen[spec.task_id]}")
        elif missing:
            problems.append(f"{path}: missing_{missing[0]}: {spec.lockfile if missing[0] == 'lockfile' else spec.image}"
                            " does not exist in this checkout")
        else:
            specs.append(spec)
        seen.setdefault(spec.task_id, str(path))
    return specs, problems


def _expand(paths: list[Path]) -> tuple[Path, ...]:
    out: list[Path] = []
    for path in paths:
        if path.is_dir():
            found = sorted(path.glob("*.json")) + sorted(path.glob("*/*.json"))
            out.extend(p for p in found if not p.parent.name.startswith("_"))
        else:
            out.append(path)
    return tuple(out)


def _soundness(specs: list) -> int:
    from bench.errors import CheckFailed
    from bench.source.synthetic_soundness import check_all

    results = check_all(specs)
    bad = [r for r in results if not r.ok]
    for r in results:
        detail = "; ".join(r.problems) if r.problems else (
            f"sound: {len(r.observed_fail_to_pass)} fail_to_pass, {len(r.observed_pass_to_pass)} pass_to_pass")
        print(f"{'ok  ' if r.ok else 'FAIL'} {r.task_id} {detail}")
    print(f"{len(results) - len(bad)} passed, {len(bad)} failed")
    if bad:
        raise CheckFailed(f"{len(bad)} synthetic task(s) unsound")
    return 0
