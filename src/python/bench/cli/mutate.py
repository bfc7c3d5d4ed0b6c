"""`bench mutate LIB==VER`: candidate mutation tasks for one library release, as task-spec JSON files.

Nothing of the library runs: the sdist is pinned from the index's JSON, fetched by hash, unpacked and
mutated on the AST. The candidates still need the gate (`bench certify`) before they are tasks.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

EPILOG = """examples:
  bench mutate cachetools==5.5.0                      every function's mutant, seed 0
  bench mutate more-itertools==10.5.0 --seed 7 --limit 50 --out /tmp/cands
Writes <task_id>.json (a task spec of kind mutation, not yet certified) and <task_id>.diff per candidate
into --out (default mutation-candidates/<name>-<version>); prints the count per operator.
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("mutate", help="make mutation-task candidates from a PyPI release", epilog=EPILOG,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("release", metavar="LIB==VER", help="a release on the index, e.g. cachetools==5.5.0")
    p.add_argument("--seed", type=int, default=0, help="seed of the per-function choice (default 0)")
    p.add_argument("--limit", type=int, default=None, help="at most N candidates (seeded choice of functions)")
    p.add_argument("--out", type=Path, default=None, help="output folder")
    p.add_argument("--index-url", default=None, help="simple index (default https://pypi.org/simple)")
    p.set_defaults(run=run)


def parse_release(text: str) -> tuple[str, str]:
    from bench.errors import UsageError

    name, sep, version = text.partition("==")
    if not sep or not name.strip() or not version.strip() or "=" in version:
        raise UsageError(f"expected LIB==VERSION, got {text!r}")
    return name.strip(), version.strip()


def run(args: argparse.Namespace) -> int:
    import json
    import tempfile
    from collections import Counter

    from bench.errors import UsageError
    from bench.mutate.candidate import candidate_spec
    from bench.mutate.engine import mutate
    from bench.mutate.files import list_test_files
    from bench.mutate.operators import OPERATORS
    from bench.source.sdist import DEFAULT_INDEX_URL, fetch_sdist, find_release, unpack_sdist
    from bench.store.action_cache import write_atomic

    name, version = parse_release(args.release)
    if args.limit is not None and args.limit < 1:
        raise UsageError("--limit must be at least 1")
    pin = find_release(name, version, index_url=args.index_url or DEFAULT_INDEX_URL)
    print(f"pinned {pin.filename} sha256={pin.sha256}", file=sys.stderr)
    archive = fetch_sdist(pin)
    out = args.out or Path("mutation-candidates") / f"{pin.name}-{pin.version}"
    with tempfile.TemporaryDirectory(prefix="bench-mutate-") as scratch:
        tree = unpack_sdist(archive, Path(scratch) / "tree")
        tests = list_test_files(tree)
        if not tests:
            raise UsageError(f"{pin.filename} ships no test files: its mutants could not be certified")
        candidates = mutate(tree, seed=args.seed, limit=args.limit)
    for candidate in candidates:
        spec = candidate_spec(pin, candidate.site, library=pin.name, test_files=tests, diff=candidate.diff)
        document = json.dumps(spec, indent=2, ensure_ascii=False) + "\n"
        write_atomic(out / f"{spec['task_id']}.json", document.encode("utf-8"))
        write_atomic(out / f"{spec['task_id']}.diff", candidate.diff.encode("utf-8"))
    counts = Counter(candidate.site.operator for candidate in candidates)
    width = max(len(operator) for operator in OPERATORS)
    for operator in OPERATORS:
        print(f"{operator:<{width}}  {counts.get(operator, 0):>5}")
    print(f"{'total':<{width}}  {len(candidates):>5}")
    print(f"{len(candidates)} candidates of {pin.name}=={pin.version} written to {out}", file=sys.stderr)
    return 0
