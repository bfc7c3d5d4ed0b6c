"""`bench pool stats | judge | sync-build`: what the task pool holds, whether its changes are bug fixes, and its
Pants targets."""

from __future__ import annotations

import argparse
import json
from collections import Counter, defaultdict

EPILOG = """examples:
  bench pool stats              per library: candidates judged, admitted, dropped by reason; the pool's digest
  bench pool stats --kind pr    only the rows of one kind (the totals and digest stay those of the whole pool)
  bench pool stats --classes    mutation rows in the yield classes of `bench mutate --admit`: good (admitted),
                                broad (> 20 targets), undetected, import (cannot collect), timeout, other
                                (a duplicate of an admitted mutant, or the environment failed)
  bench pool stats --json
Libraries are counted once per PyPI project: a PR task's library is its repository's name, a mutation task's its
sdist's, and tasks/_projects.json maps the names that differ (jinja → jinja2); the "by kind" table gives the
tasks and libraries of each kind.
The last table is test adequacy (bench adequacy): per library, the tasks measured under their current
certificate, the median share of near misses of the fix their tests kill, and how many let one through. The
verified tier's table (bench probes) follows: tasks with probes, the near misses the tests let through, how
many of them the probes kill, and the tasks where one survives both.
Mutation rows also show the reading by hand (tasks/_readings/mutation.json): tasks read and kept, read as
giveaways, never read, and the library's tasks retired because a reader called them giveaways.
  bench pool judge              judge every PR task's change: bugfix, feature, breaking, revert or unclear, and
                                which fail_to_pass tests pin a name or message only the fix knows
  bench pool judge --write      ... and record each judgement in its spec's provenance (not in its identity:
                                certificates and records stay valid)
  bench pool sync-build         regenerate tasks/*/BUILD (one bench_task target per spec)
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("pool", help="pool statistics and Pants targets", epilog=EPILOG,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("action", choices=("stats", "judge", "sync-build"),
                   help="stats: the pool by library and drop reason; judge: is each change a bug fix; "
                        "sync-build: rewrite the tasks' BUILD files")
    p.add_argument("--tasks", default=None, help="judge: only these tasks (a task selector)")
    p.add_argument("--write", action="store_true", help="judge: record the judgements in the specs")
    p.add_argument("--json", action="store_true", help="print the statistics as JSON")
    p.add_argument("--kind", choices=("pr", "synthetic", "mutation"), default=None,
                   help="print only the rows of this kind")
    p.add_argument("--classes", action="store_true",
                   help="mutation rows only, with drops counted in the mutation yield classes")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from bench.spec.load import discover, load_all
    from bench.variables import find_root

    root = find_root()
    specs = load_all(discover(root))
    if args.action == "judge":
        from bench.cli.judge import judge_pool

        return judge_pool(specs, selector=args.tasks, write=args.write)
    if args.action == "sync-build":
        from bench.gate.pants_targets import sync

        for path in sync(specs):
            print(f"wrote {path.relative_to(root)}")
        return 0
    stats = pool_stats(specs, root)
    if args.json:
        print(json.dumps(stats, indent=2, sort_keys=True))
        return 0
    if args.classes:
        print_yield_classes(stats["libraries"])
    else:
        print_reasons(stats["libraries"], args.kind)
    print(f"total: {stats['admitted']} admitted tasks from {stats['library_count']} libraries "
          f"(one per PyPI project); {stats['dropped']} dropped")
    print(f"pool digest: {stats['digest']}")
    from bench.gate.twins import distinct_bugs_line  # a reverted fix that is also a PR task is one bug

    print(distinct_bugs_line(specs, root))
    print_kinds(stats)
    if not args.classes:
        rows = [row for row in stats["libraries"] if not args.kind or row["kind"] == args.kind]
        print_judgements(rows)
        print_adequacy(rows, stats["adequacy"])
        print_probes(rows, stats["probes"])
        print_readings(rows)
        print_mining(stats["mining"])
    return 0


def print_kinds(stats: dict) -> None:
    """Admitted tasks and libraries (PyPI projects) per kind, and in all."""
    print(f"\n{'by kind':<24} {'tasks':>6} {'libraries':>9}")
    for kind, tasks in stats["by_kind"].items():
        libraries = stats["libraries_by_kind"].get(kind)
        print(f"{kind:<24} {tasks:>6} {'–' if libraries is None else libraries:>9}")
    print(f"{'all':<24} {stats['admitted']:>6} {stats['library_count']:>9}")
    from bench.spec.dates import quarter_table

    print("\n" + "\n".join(quarter_table(stats["by_quarter"])))


def print_reasons(rows: list[dict], kind: str | None) -> None:
    print(f"{'library':<24} {'kind':<10} {'candidates':>10} {'admitted':>8} {'dropped':>8} {'yield':>6}  drop reasons")
    for row in rows:
        if kind and row["kind"] != kind:
            continue
        reasons = ", ".join(f"{r}={n}" for r, n in sorted(row["drop_reasons"].items()))
        judged = row["admitted"] + row["dropped"]
        print(f"{row['library']:<24} {row['kind']:<10} {judged:>10} {row['admitted']:>8} {row['dropped']:>8} "
              f"{row['admitted'] / judged:>6.0%}  {reasons}")


def print_judgements(rows: list[dict]) -> None:
    from bench.gate.judgement import VERDICTS

    judged = [row for row in rows if row.get("judgements")]
    if not judged:
        return
    columns = (*VERDICTS, "unjudged", "over-specified")
    print(f"\n{'judged changes':<24} {'kind':<10} " + " ".join(f"{name:>9}" for name in columns))
    totals: Counter = Counter()
    for row in judged:
        totals.update(row["judgements"])
        print(f"{row['library']:<24} {row['kind']:<10} " + " ".join(f"{row['judgements'].get(n, 0):>9}" for n in columns))
    print(f"{'all':<24} {'':<10} " + " ".join(f"{totals.get(n, 0):>9}" for n in columns))


def print_mining(runs: list[dict]) -> None:
    """The last mining run of each library: what it walked, and the candidates it never tried."""
    if not runs:
        return
    print(f"\n{'last mining run':<24} {'branch':<22} {'head':<10} {'candidates':>10} {'tried':>6} "
          f"{'never tried':>11}  stopped")
    for run in runs:
        tried = sum(n for outcome, n in run["admission"].items() if outcome in ("admitted", "dropped", "error"))
        print(f"{run['library']:<24} {run['branch'].removeprefix('refs/heads/'):<22} {run['head'][:10]:<10} "
              f"{run['counts']['candidates']:>10} {tried:>6} {len(run['never_tried']):>11}  {run['stopped']}")


def print_adequacy(rows: list[dict], overall: dict) -> None:
    """Per library: tasks whose near misses were measured under their current certificate, the median share
    of near misses the tests kill, and how many tasks let at least one through."""
    measured = [row for row in rows if row.get("adequacy", {}).get("measured")]
    if not measured:
        return
    print(f"\n{'test adequacy':<24} {'kind':<10} {'tasks':>6} {'measured':>8} {'no near miss':>12} {'median':>7} "
          f"{'any survivor':>13}")
    for row in [*measured, {"library": "all", "kind": "", "adequacy": overall}]:
        a = row["adequacy"]
        median = "–" if a["median"] is None else f"{a['median']:.2f}"
        share = "–" if a["with_survivor_share"] is None else f"{a['with_survivor']} ({a['with_survivor_share']:.0%})"
        print(f"{row['library']:<24} {row['kind']:<10} {a['tasks']:>6} {a['measured']:>8} {a['no_near_miss']:>12} "
              f"{median:>7} {share:>13}")


def print_probes(rows: list[dict], overall: dict) -> None:
    """Per library: tasks with a current probe summary, with probes, and of the near misses their tests let
    through, how many the probes kill; tasks where some near miss survives the probes too."""
    probed = [row for row in rows if row.get("probes", {}).get("summarised")]
    if not probed:
        return
    print(f"\n{'verified tier (probes)':<24} {'kind':<10} {'tasks':>6} {'summarised':>10} {'with probes':>11} "
          f"{'survivors':>9} {'killed':>7} {'tasks still weak':>16}")
    for row in [*probed, {"library": "all", "kind": "", "probes": overall}]:
        p = row["probes"]
        weak = f"{p['tasks_still_surviving']}/{p['tasks_with_survivors']}"
        print(f"{row['library']:<24} {row['kind']:<10} {p['tasks']:>6} {p['summarised']:>10} {p['with_probes']:>11} "
              f"{p['survivors']:>9} {p['killed_by_probes']:>7} {weak:>16}")


def print_readings(rows: list[dict]) -> None:
    """Per mutation library: how its tasks fared when read by hand for giveaways."""
    read = [row for row in rows if "reading" in row]
    if not read:
        return
    print(f"\n{'read by hand':<24} {'kind':<10} {'tasks':>6} {'kept':>6} {'giveaway':>9} {'unread':>7} "
          f"{'retired as giveaway':>20}")
    for row in read:
        r = row["reading"]
        print(f"{row['library']:<24} {row['kind']:<10} {row['admitted']:>6} {r['read']:>6} {r['giveaway']:>9} "
              f"{r['unread']:>7} {r['retired_giveaway']:>20}")


def _reading_rows(specs, root) -> dict:
    """(library, "mutation") -> the reading summary of its pool tasks, and its giveaways no longer in the pool."""
    from bench.mutate import readings as hand

    found = hand.load(root)
    by_library: dict = defaultdict(list)
    for s in specs:
        if s.kind == "mutation":
            by_library[s.library].append(s.task_id)
    in_pool = {s.task_id for s in specs}
    retired = Counter(r.task_id.split(".")[1] for r in found.values() if r.giveaway and r.task_id not in in_pool)
    return {(library, "mutation"): dict(hand.summary(found, ids), retired_giveaway=retired[library])
            for library, ids in by_library.items()}


def _judgement_counts(specs) -> dict:
    """(library, kind) -> verdict counts, "unjudged" and "over-specified", for kinds that are judged."""
    from bench.spec.kind_registry import get_kind

    counts: dict = defaultdict(Counter)
    for spec in specs:
        judgement = spec.provenance.judgement
        if judgement is None and not get_kind(spec.kind).judged:
            continue
        key = (spec.library, spec.kind)
        counts[key][judgement.verdict if judgement else "unjudged"] += 1
        counts[key]["over-specified"] += bool(judgement and judgement.over_specified)
    return counts


def print_yield_classes(rows: list[dict]) -> None:
    from bench.gate.mutation_batch import YIELD_COLUMNS, yield_class

    print(f"{'library':<24} {'candidates':>10} " + " ".join(f"{name:>10}" for name in YIELD_COLUMNS))
    totals: Counter = Counter()
    for row in (r for r in rows if r["kind"] == "mutation"):
        counts = Counter({"good": row["admitted"]})
        for reason, count in row["drop_reasons"].items():
            counts[yield_class(reason)] += count
        counts["candidates"] = row["admitted"] + row["dropped"]
        totals.update(counts)
        print(_classes_line(row["library"], counts, YIELD_COLUMNS))
    print(_classes_line("all mutation", totals, YIELD_COLUMNS))


def _classes_line(label: str, counts: Counter, columns: tuple[str, ...]) -> str:
    judged = counts["candidates"]
    cells = " ".join(f"{counts[name]:>4} {counts[name] / judged if judged else 0:>4.0%} " for name in columns)
    return f"{label:<24} {judged:>10} {cells}"


def _document_library(candidate: dict) -> str:
    """A dropped candidate's library as its kind names it (a kind unknown here: the repository's name)."""
    from bench.errors import SpecError
    from bench.kinds.base import RepositoryKind
    from bench.spec.kind_registry import get_kind

    try:
        return get_kind(str(candidate.get("kind", "?"))).document_library(candidate)
    except SpecError:
        return RepositoryKind().document_library(candidate)


def pool_stats(specs, root) -> dict:
    from bench.gate import adequacy_store
    from bench.probes import store as probe_store
    from bench.spec.dates import tasks_per_quarter
    from bench.spec.kind_registry import get_kind
    from bench.spec.load import spec_sha256
    from bench.spec.projects import load_aliases, project
    from bench.store.canonical import sha256_of

    admitted = Counter((s.library, s.kind) for s in specs)
    drops: dict = defaultdict(Counter)
    for path in sorted((root / "tasks" / "_dropped").glob("*.json")):
        data = json.loads(path.read_text())
        candidate = data.get("candidate", {})
        library = _document_library(candidate)
        drops[(library, candidate.get("kind", "?"))][data.get("reason", "?").split(":")[0]] += 1
    judged = _judgement_counts(specs)
    adequacy = adequacy_store.current(root, [s.task_id for s in specs])
    probes = probe_store.current(root, [s.task_id for s in specs])
    read = _reading_rows(specs, root)
    aliases = load_aliases(root)
    libraries = [s for s in specs if get_kind(s.kind).is_library()]  # synthetic tasks have none
    by_kind: dict = defaultdict(set)
    for s in libraries:
        by_kind[s.kind].add(project(s.library, aliases))
    rows = []
    for key in sorted(set(admitted) | set(drops)):
        row = {"library": key[0], "project": project(key[0], aliases), "kind": key[1],
               "admitted": admitted.get(key, 0),
               "dropped": sum(drops[key].values()), "drop_reasons": dict(drops[key])}
        if key in judged:
            row["judgements"] = dict(sorted(judged[key].items()))
        if admitted.get(key):
            row["adequacy"] = adequacy_store.summary(adequacy[s.task_id] for s in specs
                                                     if (s.library, s.kind) == key)
            row["probes"] = probe_store.stats({s.task_id: probes[s.task_id] for s in specs
                                               if (s.library, s.kind) == key})
        if key in read:
            row["reading"] = read[key]
        rows.append(row)
    return {
        "libraries": rows,
        "admitted": len(specs),
        "dropped": sum(sum(c.values()) for c in drops.values()),
        "library_count": len({project(s.library, aliases) for s in libraries}),  # jinja (PR) = jinja2 (mutation)
        "libraries_by_kind": {kind: len(names) for kind, names in sorted(by_kind.items())},
        "by_kind": dict(sorted(Counter(s.kind for s in specs).items())),
        "by_quarter": tasks_per_quarter(specs),
        "digest": sha256_of(sorted([s.task_id, spec_sha256(s)] for s in specs)),
        "adequacy": adequacy_store.summary(adequacy.values()),
        "probes": probe_store.stats(probes),
        "mining": [dict(json.loads(path.read_text()), library=path.stem)
                   for path in sorted((root / "tasks" / "_mining").glob("*.json"))],
    }
