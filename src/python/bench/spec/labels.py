"""Writing a spec's labels: provenance fields outside its identity (bench.spec.load.LABELS).

A label describes a task (its admission judgement, the day it is dated by) and decides none of its runs, so
setting one changes no ``spec_sha256``, certificate or record. The file keeps its key order and escaping.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Mapping

from bench.errors import UsageError
from bench.spec.load import LABELS


def write_labels(path: Path, labels: Mapping[str, Any], *, sort_keys: bool = False) -> None:
    """Set ``provenance[key] = value`` for each label in the spec file at ``path`` (atomically); ``sort_keys``
    as admission writes a spec, else in the file's own order."""
    from bench.store.action_cache import write_atomic

    unknown = sorted(set(labels) - LABELS)
    if unknown:
        raise UsageError(f"not a label of a spec's provenance: {', '.join(unknown)} "
                         f"(labels: {', '.join(sorted(LABELS))})")
    text = path.read_text(encoding="utf-8")
    doc = json.loads(text)
    doc["provenance"] = {**doc["provenance"], **labels}
    document = json.dumps(doc, indent=2, sort_keys=sort_keys, ensure_ascii=text.isascii()) + "\n"
    write_atomic(path, document.encode("utf-8"))
