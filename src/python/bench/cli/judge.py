"""`bench pool judge`: is each PR task's change a bug fix (bench.gate.judgement), and, with ``--write``, the
judgement recorded in its spec's provenance."""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path


def judge_pool(specs, *, selector: str | None, write: bool) -> int:
    from bench.spec.kind_registry import get_kind
    from bench.spec.load import select

    chosen = [spec for spec in select(specs, selector) if get_kind(spec.kind).judged]
    verdicts: Counter = Counter()
    over = 0
    for spec in chosen:
        judgement = get_kind(spec.kind).judge(spec, mirror=None, fix_side_failing=fix_side_failing(spec))
        verdicts[judgement.verdict] += 1
        over += bool(judgement.over_specified)
        print(f"{spec.task_id}\t{judgement.verdict}\t{len(judgement.over_specified)}/{len(spec.fail_to_pass)} "
              f"over-specified\t{' '.join(judgement.signals)}")
        if write:
            record_judgement(Path(spec.path), judgement)
    summary = ", ".join(f"{verdict} {count}" for verdict, count in sorted(verdicts.items()))
    print(f"{len(chosen)} judged: {summary}; {over} with over-specified tests" + ("; written" if write else ""),
          file=sys.stderr)
    return 0


def fix_side_failing(spec) -> tuple[str, ...]:
    """The tests the task's certificate saw fail with the fix every time (none without a certificate)."""
    from bench.gate.certify import certificate_file, read_certificate
    from bench.variables import find_root

    path = certificate_file(find_root(), spec.task_id)
    if not path.is_file():
        return ()
    return tuple(json.loads(read_certificate(path)).get("sets", {}).get("baseline_failing", ()))


def record_judgement(path: Path, judgement) -> None:
    """The spec file with ``provenance.judgement`` set, written as admission writes specs."""
    from bench.spec.labels import write_labels

    write_labels(path, {"judgement": judgement.to_json()}, sort_keys=True)
