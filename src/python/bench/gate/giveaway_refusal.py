"""Mutation candidates whose mutant a reader spots against the rest of its file are not admitted.

The engine's own refusals (:mod:`bench.mutate.readability`) look at the site; :mod:`bench.mutate.anomalies`
compares the whole file before and after (a read of a name that may be unbound, a guard that then reads the
value, arithmetic that does nothing, a statement that no longer matches its twin nearby, arguments against the
file's own order). Engine version 3's proposals stay as they are (the committed pool's seed and version
reproduce them); admission drops such a candidate as ``giveaway:<anomaly>`` before any test runs, and the
library's cap is filled by the next candidates in order.
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

from bench.gate.admit import Admission
from bench.gate.drops import record_drop


def drop_reason(anomaly: str) -> str:
    return "giveaway:" + re.sub(r"\W+", "_", anomaly).strip("_")


def refuse_giveaways(todo: list, root: Path) -> tuple[list, tuple[Admission, ...]]:
    """``todo`` ((document, spec) pairs of one release) without the candidates whose mutant adds an anomaly to
    its file, and those candidates' drops: each is recorded with the anomaly as its reason, and reported like any
    other drop."""
    from bench.mutate.anomalies import added_anomaly

    if not todo:
        return todo, ()
    texts = _released_files(todo)
    kept, refused = [], []
    for doc, spec in todo:
        site = spec.mutation
        anomaly = added_anomaly(texts[site.file], site.start, site.end, site.replacement)
        if anomaly:
            reason = drop_reason(anomaly)
            record_drop(doc, reason, root)
            refused.append(Admission(spec.task_id, False, reason, None, None))
        else:
            kept.append((doc, spec))
    return kept, tuple(refused)


def _released_files(todo: list) -> dict[str, bytes]:
    """The released bytes of every file the candidates mutate (they share one sdist)."""
    from bench.source.sdist import fetch_sdist, unpack_sdist

    pin = todo[0][1].sdist
    with tempfile.TemporaryDirectory(prefix="bench-giveaways-") as scratch:
        tree = unpack_sdist(fetch_sdist(pin), Path(scratch) / "tree")
        return {name: (tree / name).read_bytes() for name in {spec.mutation.file for _, spec in todo}}
