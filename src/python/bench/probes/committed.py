"""A committed probe set: for a task whose code lives in this repository, the set itself is kept with its summary.

A library task's probe set holds values observed in that library's tests, so it is never committed (see
:mod:`bench.probes.store`). A synthetic task's values are this repository's own, so its set is committed too,
in ``results/probes/sets/<task_id>.json.gz``, and a fresh machine replays it instead of building it again (on
the main job's 67 tasks that building took a quarter of the scoring threads' time). It counts only while
everything it was made from is the same: the certificate (which binds the spec, the lock and the image), the
task's folder, the probe version, the probe code's own text (:func:`probe_code_digest`: a change of generation
that forgot the version never meets a set made before it) and the Hypothesis version that generated its inputs;
and only while its bytes
are those of the set the committed summary names. Otherwise the set is built again here, as it would be without
one.
"""

from __future__ import annotations

import functools
import json
import zlib
from pathlib import Path

from bench.probes.probe_set import PROBE_VERSION, ProbeSet
from bench.store import gzipped


def set_file(root: Path, task_id: str) -> Path:
    return root / "results" / "probes" / "sets" / f"{task_id}.json.gz"


def made_from(task_files_sha256: str, certificate_sha256: str) -> dict:
    import hypothesis

    return {"certificate_sha256": certificate_sha256, "task_files_sha256": task_files_sha256,
            "probes": PROBE_VERSION, "hypothesis": hypothesis.__version__, "code": probe_code_digest()}


@functools.lru_cache(maxsize=1)
def probe_code_digest() -> str:
    return code_digest(Path(__file__).resolve().parent)


def code_digest(folder: Path) -> str:
    """sha256 over the text of the modules of ``folder`` (tests aside), in name order: for the probe package,
    the code that builds and replays a probe set."""
    import hashlib

    digest = hashlib.sha256()
    for path in sorted(folder.glob("*.py")):
        if not path.name.endswith("_test.py"):
            digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def write(root: Path, probe_set: ProbeSet, inputs: dict) -> Path:
    """Write the set beside its summary (deterministic gzip; a file already holding the same content is left
    as it is, so an unchanged set never shows as changed)."""
    from bench.store.canonical import canonical_json

    data = canonical_json({"made_from": inputs, "set": probe_set.to_json()})
    return gzipped.write(set_file(root, probe_set.task_id), data)


def read(root: Path, task_id: str, inputs: dict, probe_set_sha256: str) -> ProbeSet | None:
    """The committed set of the task when it was made from ``inputs`` and is the set ``probe_set_sha256``
    names; None otherwise."""
    path = set_file(root, task_id)
    if not path.is_file() or not probe_set_sha256:
        return None
    try:
        data = json.loads(gzipped.read(path))
    except (OSError, EOFError, zlib.error, ValueError):
        return None
    if not isinstance(data, dict) or data.get("made_from") != inputs:
        return None
    try:
        probe_set = ProbeSet.from_json(data["set"])
    except (KeyError, TypeError, ValueError):
        return None
    if probe_set.sha256 != probe_set_sha256 or probe_set.task_id != task_id:
        return None
    return probe_set
