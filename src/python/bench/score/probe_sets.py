"""A prepared task's probe set and the verified tier's check of a candidate, as scoring uses them.

The probe set (:mod:`bench.probes.probe_set`) is built on first use in the task's own scored environment and
cached by the action cache under the task's verdict key, its certificate, the probe version and the
Hypothesis version that generated its inputs; one is built per task per process, however many workers ask.
A candidate's check is cached by its source digest under the probe set's sha256.
"""

from __future__ import annotations

import json
import threading
from dataclasses import replace
from pathlib import Path

from bench.probes.probe_set import PROBE_VERSION, ProbeSet, Reference
from bench.probes.verify import Verification
from bench.sandbox.cleanup import scratch_dir
from bench.score.task_env import PreparedTask, limits_for

REPLAY_WALL_SECONDS = 180.0

_built: dict[str, ProbeSet] = {}
_locks: dict[str, threading.Lock] = {}
_guard = threading.Lock()


def reference_of(task: PreparedTask, *, with_sources: bool = True) -> Reference:
    """The task's reference (its fix side's source files) in its scored environment; without its sources, just
    the environment and the pristine tree a candidate's sources are laid into."""
    from bench.spec.kind_registry import get_kind
    from bench.verdict.masks import task_packages

    spec = task.spec
    sources: tuple[tuple[str, str], ...] = ()
    if with_sources:
        with scratch_dir(prefix="bench-reference-") as scratch:
            fix = Path(scratch) / "fix"
            get_kind(spec.kind).lay_out(spec, "fix", fix, mirror=task.mirror)
            sources = tuple((p, (fix / p).read_text(encoding="utf-8")) for p in spec.source_files
                            if (fix / p).is_file())
    return Reference(task.run_environment, task.pristine, sources, task_packages(spec.source_files),
                     task.content_masks)


def replay_limits(task: PreparedTask):
    return replace(limits_for(task.spec), wall_seconds=REPLAY_WALL_SECONDS)


def cache_key(task: PreparedTask) -> dict:
    import hypothesis

    return {**task.verdict_key(), "certificate": task.integrity["certificate_sha256"], "probes": PROBE_VERSION,
            "hypothesis": hypothesis.__version__}


def probe_set_for(task: PreparedTask, *, use_cache: bool = True) -> ProbeSet:
    """The task's probe set: from this process's memory, the action cache, or built now."""
    from bench.probes.probe_set import build, read
    from bench.spec.kind_registry import get_kind
    from bench.store.action_cache import ActionCache

    task_id = task.spec.task_id
    with _guard:
        lock = _locks.setdefault(task_id, threading.Lock())
    with lock:
        if use_cache and task_id in _built:
            return _built[task_id]
        cache = ActionCache("probes")
        key = cache.key(cache_key(task))
        hit = cache.get(key) if use_cache else None
        if hit is not None:
            probe_set = read(hit)
        else:
            with scratch_dir(prefix="bench-probes-") as scratch:
                probe_set = build(task.spec, reference_of(task), Path(scratch), test_limits=limits_for(task.spec),
                                  replay_limits=replay_limits(task),
                                  public_api=get_kind(task.spec.kind).probe_public_api)
            cache.put(key, probe_set.canonical())
        _built[task_id] = probe_set
        return probe_set


def verify_candidate(task: PreparedTask, sources, *, cache=None) -> Verification:
    """Replay the task's probes against the candidate whose source files are ``sources``."""
    from bench.loop.signature import candidate_digest
    from bench.probes.verify import verify

    probe_set = probe_set_for(task)
    key = None
    if cache is not None:
        key = cache.key({"probe_set": probe_set.sha256, "candidate": candidate_digest(sources), "kind": "verify-v1"})
        if (hit := cache.get(key)) is not None:
            return Verification.from_json(json.loads(hit))
    reference = reference_of(task, with_sources=False)
    with scratch_dir(prefix="bench-verify-") as scratch:
        result = verify(probe_set, reference, tuple(sources), Path(scratch), limits=replay_limits(task),
                        source_files=task.spec.source_files, reference_again=lambda: reference_of(task).sources)
    if cache is not None and key is not None:
        cache.put(key, json.dumps(result.to_json(), sort_keys=True).encode())
    return result


def summary_for(task: PreparedTask, root: Path, *, near_misses: bool = True):
    """The task's probe summary (bench.probes.store), its adequacy's survivors replayed when ``near_misses``."""
    from bench.gate import adequacy_store
    from bench.probes.near_misses import probe_near_misses
    from bench.probes.store import summarise

    probe_set = probe_set_for(task)
    near = None
    if near_misses:
        adequacy = adequacy_store.read_current(root, task.spec.task_id)
        with scratch_dir(prefix="bench-near-") as scratch:
            near = probe_near_misses(task.spec, adequacy, probe_set, reference_of(task), Path(scratch),
                                     limits=replay_limits(task))
    return summarise(probe_set, adequacy_store.certificate_sha256(root, task.spec.task_id), near)
