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
  bench mutate sqlparse==0.5.1 --limit 120 --admit --cap 40
  bench mutate sqlparse==0.5.1 --admit --cluster tcp://10.0.0.5:8786   the gate's runs on Dask workers
  bench mutate sqlparse==0.5.3 --history andialbrecht/sqlparse --admit   the release's own past fixes, undone
Writes <task_id>.json (a task spec of kind mutation, not yet certified) and <task_id>.diff per candidate
into --out (default .bench/candidates/mutation-<name>-<version> in the checkout, which git ignores); prints the
count per operator. The spec names the mutation by file, byte span and replacement; the diff (which quotes the
library's code) stays beside it.
With --history GIT_DIR the candidates are not made by the engine: each is a small fix of one library file
that the project made before the release (its commit subject says it fixes something), undone in the released
file (operator reverted_fix; the commit id goes into the spec's provenance).
With --admit the candidates go through the gate in order (one lock, one environment and one release-suite
baseline for all of them) until --cap tasks of the library are in the pool; prints the yield table.
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("mutate", help="make mutation-task candidates from a PyPI release", epilog=EPILOG,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("release", metavar="LIB==VER", help="a release on the index, e.g. cachetools==5.5.0")
    p.add_argument("--seed", type=int, default=0, help="seed of the per-function choice (default 0)")
    p.add_argument("--limit", type=int, default=None, help="at most N candidates (seeded choice of functions)")
    p.add_argument("--engine-version", default="3", choices=("3", "4"),
                   help="the mutation engine's version: 3 (default; the committed pool's) or 4 (adds omissions: "
                        "a clause, a case, a clamp, a normalising call, a keyword flag, an f prefix left out)")
    p.add_argument("--operators", default=None, metavar="NAME,...",
                   help="only these of the engine version's operators (\"omissions\" names version 4's omissions)")
    p.add_argument("--history", default=None, metavar="GIT_DIR|OWNER/NAME",
                   help="undo the project's own fixes made before the release, read from this git repository "
                        "(or the mirror OWNER/NAME under $BENCH_MIRROR_DIR)")
    p.add_argument("--tag", default=None, help="with --history: the release's tag (default v<version> or <version>)")
    p.add_argument("--out", type=Path, default=None,
                   help="output folder (default: .bench/candidates/mutation-<name>-<version>, git-ignored)")
    p.add_argument("--index-url", default=None, help="simple index (default https://pypi.org/simple)")
    p.add_argument("--admit", action="store_true", help="certify the candidates and admit the good ones")
    p.add_argument("--cap", type=int, default=None, help="with --admit: mutation tasks per library (default 30)")
    p.add_argument("--k", type=int, default=3, help="with --admit: runs per side (default 3)")
    p.add_argument("--max-targets", type=int, default=20, help="with --admit: most target tests (default 20)")
    p.add_argument("--sandbox", default=None, help="with --admit: bwrap (default) or docker")
    p.add_argument("--cluster", default=None, metavar="tcp://HOST:8786",
                   help="with --admit: run the gate on this Dask scheduler's workers (default: $BENCH_CLUSTER)")
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
    from bench.mutate.engine import profile
    from bench.mutate.files import list_test_files
    from bench.mutate.history import OPERATOR
    from bench.source.sdist import DEFAULT_INDEX_URL, fetch_sdist, find_release, unpack_sdist
    from bench.store.action_cache import write_atomic
    from bench.variables import candidates_dir

    name, version = parse_release(args.release)
    if args.limit is not None and args.limit < 1:
        raise UsageError("--limit must be at least 1")
    pin = find_release(name, version, index_url=args.index_url or DEFAULT_INDEX_URL)
    print(f"pinned {pin.filename} sha256={pin.sha256}", file=sys.stderr)
    archive = fetch_sdist(pin)
    out = args.out or candidates_dir(f"mutation-{pin.name}-{pin.version}")
    with tempfile.TemporaryDirectory(prefix="bench-mutate-") as scratch:
        tree = unpack_sdist(archive, Path(scratch) / "tree")
        tests = list_test_files(tree)
        if not tests:
            raise UsageError(f"{pin.filename} ships no test files: its mutants could not be certified")
        commits, candidates = _candidates(tree, args)
    written = []
    for candidate, commit in zip(candidates, commits):
        spec = candidate_spec(pin, candidate.site, original=candidate.original, library=pin.name, test_files=tests,
                              reverted_commit=commit)
        document = json.dumps(spec, indent=2, ensure_ascii=False) + "\n"
        write_atomic(out / f"{spec['task_id']}.json", document.encode("utf-8"))
        write_atomic(out / f"{spec['task_id']}.diff", candidate.diff.encode("utf-8"))
        written.append(spec["task_id"])
    counts = Counter(candidate.site.operator for candidate in candidates)
    operators = (OPERATOR,) if args.history else _operators(args) or profile(args.engine_version).operators
    width = max(len(operator) for operator in operators)
    for operator in operators:
        print(f"{operator:<{width}}  {counts.get(operator, 0):>5}")
    print(f"{'total':<{width}}  {len(candidates):>5}")
    print(f"{len(candidates)} candidates of {pin.name}=={pin.version} written to {out}", file=sys.stderr)
    if not args.admit:
        return 0
    documents = [json.loads((out / f"{task_id}.json").read_text(encoding="utf-8")) for task_id in written]
    return admit_batch(documents, args)


def _candidates(tree: Path, args: argparse.Namespace) -> tuple[tuple[str, ...], tuple]:
    """The candidates (and, for reverted fixes, the commit each undoes; else empty ids)."""
    from bench.mutate.engine import mutate
    from bench.mutate.history import resolve_tag, reverted_fixes

    if args.history is None:
        candidates = mutate(tree, seed=args.seed, limit=args.limit, version=args.engine_version,
                            operators=_operators(args))
        return ("",) * len(candidates), candidates
    git_dir = _history_repository(str(args.history))
    fixes = reverted_fixes(tree, git_dir, resolve_tag(git_dir, parse_release(args.release)[1], args.tag))
    taken = _reverted_already(parse_release(args.release)[0])
    fixes = tuple(fix for fix in fixes if fix.commit not in taken)  # decided in another release already
    fixes = fixes[: args.limit] if args.limit else fixes
    return tuple(fix.commit for fix in fixes), tuple(fix.candidate for fix in fixes)


def _operators(args: argparse.Namespace) -> tuple[str, ...] | None:
    """--operators: names of the engine version's operators; ``omissions`` stands for version 4's omissions."""
    from bench.errors import UsageError
    from bench.mutate.engine import profile
    from bench.mutate.operators import OMISSIONS

    if not getattr(args, "operators", None):
        return None
    names = [name.strip() for name in args.operators.split(",") if name.strip()]
    chosen = tuple(dict.fromkeys(n for name in names for n in (OMISSIONS if name == "omissions" else (name,))))
    known = profile(args.engine_version).operators
    unknown = [name for name in chosen if name not in known]
    if unknown or not chosen:
        raise UsageError(f"--operators: {', '.join(unknown) or 'none given'} not among engine version "
                         f"{args.engine_version}'s operators: {', '.join(known)}")
    return chosen


def _history_repository(text: str) -> Path:
    """--history: a git repository's path, or OWNER/NAME of a mirror under $BENCH_MIRROR_DIR."""
    from bench.errors import UsageError
    from bench.source.git import mirror_for

    if Path(text).exists():
        return mirror_for(text, Path(text))
    found = mirror_for(text) if text.count("/") == 1 else None
    if found is None:
        raise UsageError(f"--history {text}: not a git repository, nor a mirror OWNER/NAME under $BENCH_MIRROR_DIR")
    return found


def _reverted_already(library: str) -> frozenset[str]:
    """The commits whose fixes the gate already decided for the library, in any release: undone by a pool task,
    or dropped (a fix no test of a newer release notices, or whose undoing reads as planted, is not tried again
    in an older one)."""
    import json

    from bench.spec.load import discover, load_all
    from bench.spec.model import normalise_name
    from bench.variables import find_root

    root, name = find_root(), normalise_name(library)
    commits = {spec.provenance.reverted_commit for spec in load_all(discover(root))
               if spec.sdist is not None and spec.provenance.reverted_commit
               and normalise_name(spec.sdist.name) == name}
    for path in (root / "tasks" / "_dropped").glob(f"mutation.{name}.*.json"):
        candidate = json.loads(path.read_text(encoding="utf-8")).get("candidate", {})
        commits.add(candidate.get("provenance", {}).get("reverted_commit", ""))
    return frozenset(commits - {""})


def admit_batch(documents: list[dict], args: argparse.Namespace) -> int:
    """Admit mutation candidates through the batch gate; print one line each and the yield table."""
    from bench.gate.mutation_batch import DEFAULT_CAP, YIELD_COLUMNS, admit_mutations
    from bench.variables import find_root, get

    def report(admission, seconds: float) -> None:
        verdict = "admitted" if admission.admitted else "dropped "
        f2p = len(admission.certificate.sets.fail_to_pass) if admission.certificate else 0
        print(f"{verdict} {admission.task_id}: {admission.reason} f2p={f2p} ({seconds:.1f} s)", flush=True)

    cap = DEFAULT_CAP if getattr(args, "cap", None) is None else args.cap
    settings = {"k": args.k, "sandbox_name": args.sandbox or get("BENCH_SANDBOX"), "max_targets": args.max_targets,
                "cap": cap, "on_result": report}
    cluster = get("BENCH_CLUSTER") if getattr(args, "cluster", None) is None else args.cluster
    if cluster:
        from bench.gate.remote_admit import admit_mutations_on_cluster

        outcomes = admit_mutations_on_cluster(documents, find_root(), cluster, relock=False, **settings)
    else:
        outcomes = admit_mutations(documents, find_root(), **settings)
    for outcome in outcomes:
        counts = outcome.yield_counts()
        tried = len(outcome.admissions)
        table = " ".join(f"{name}={counts.get(name, 0)}" for name in YIELD_COLUMNS)
        per_hour = tried / outcome.seconds * 3600 if outcome.seconds else 0.0
        print(f"yield: {tried} judged ({outcome.skipped} decided earlier): {table}; "
              f"release suite {outcome.release_seconds:.1f} s; {per_hour:.0f} mutants/hour")
    return 0
