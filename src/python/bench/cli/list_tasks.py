"""`bench list [SELECTOR]`: the tasks a selector picks, one line each."""

from __future__ import annotations

import argparse

EPILOG = """selectors: all | kind:pr | lib:click | difficulty:hard | tag:graphs | tasks/click:: | 'synthetic.*'
examples:
  bench list
  bench list difficulty:hard
  bench list --json lib:click
With --json each line also has the task's test adequacy when it was measured under its current certificate
(bench adequacy): "adequacy" (near misses killed / run), "adequacy_band" and "near_miss_survivors"; a task whose
tests let a near miss of its fix through has "weak_tests": true. When its probe set was summarised (bench
probes): "probes" (how many), and of the near misses its tests let through, "near_miss_killed_by_probes" and
"near_miss_equivalent_on_probes".
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("list", help="list tasks", epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("selector", nargs="?", default=None, help="task selector (default: every task; see README: Run it)")
    p.add_argument("--json", action="store_true", help="one JSON object per line")
    p.set_defaults(run=run)


def _judgement(spec) -> dict:
    """A judged task's verdict, and the flag a reader filters on: over-specified fail_to_pass tests."""
    judgement = spec.provenance.judgement
    if judgement is None:
        return {}
    return {"judgement": judgement.verdict, "over_specified": len(judgement.over_specified)}


def _adequacy(root, spec) -> dict:
    from bench.gate import adequacy_store

    result = adequacy_store.read_current(root, spec.task_id)
    band = adequacy_store.band(result)
    if result is None:
        return {"adequacy_band": band}
    return {"adequacy": None if result.score is None else round(result.score, 4), "adequacy_band": band,
            "near_miss_survivors": len(result.survivors), "weak_tests": bool(result.survivors)}


def _probes(root, spec) -> dict:
    """The task's probe summary (bench probes) when one was made under its current certificate."""
    from bench.gate.adequacy_store import certificate_sha256
    from bench.probes.store import read_current

    summary = read_current(root, spec.task_id, certificate_sha256(root, spec.task_id))
    if summary is None:
        return {}
    out = {"probes": summary.probes}
    if summary.near_misses is not None:
        out.update(near_miss_killed_by_probes=len(summary.near_misses.killed),
                   near_miss_equivalent_on_probes=len(summary.near_misses.equivalent))
    return out


def run(args: argparse.Namespace) -> int:
    import json

    from bench.spec.load import discover, load_all, select
    from bench.variables import find_root

    root = find_root()
    specs = select(load_all(discover(root)), args.selector)
    for spec in specs:
        if args.json:
            print(json.dumps({"task_id": spec.task_id, "kind": spec.kind, "library": spec.library,
                              "difficulty": spec.difficulty, "path": spec.path, "date": spec.date,
                              "fail_to_pass": len(spec.fail_to_pass), **_judgement(spec),
                              **_adequacy(root, spec), **_probes(root, spec)}, sort_keys=True))
        else:
            extra = f" [{spec.difficulty}]" if spec.difficulty else ""
            print(f"{spec.task_id}\t{spec.kind}\t{spec.library}{extra}\t{len(spec.fail_to_pass)} f2p")
    return 0
