"""A prepared task's probe set and the verified tier's check of a candidate, as scoring uses them.

The probe set (:mod:`bench.probes.probe_set`) is built on first use in the task's own scored environment and
cached by the action cache under the task's verdict key, its certificate, the probe version and the
Hypothesis version that generated its inputs; one is built per task per process, however many workers ask.
A task whose code lives in this repository has its set committed (:mod:`bench.probes.committed`), taken
while everything it was made from is unchanged.
A candidate's check is cached by its source digest under the probe set's sha256.
"""

from __future__ import annotations

import json
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

from bench.probes.committed import probe_code_digest
from bench.probes.probe_set import PROBE_VERSION, ProbeSet, Reference
from bench.probes.verify import Verification
from bench.sandbox.cleanup import scratch_dir, tree_scratch
from bench.score.spare_core import busy, spare_for
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

    # "addresses": sets built since the recording keeps one address layout (ExecRequest.fixed_addresses) and the
    # replays a random one; a set built otherwise is not taken from the cache. "code": the probe modules' own
    # text, so a change of generation that forgot PROBE_VERSION (or reused a number) never meets a set built
    # before it.
    return {**task.verdict_key(), "certificate": task.integrity["certificate_sha256"], "probes": PROBE_VERSION,
            "hypothesis": hypothesis.__version__, "addresses": "fixed while recording", "code": probe_code_digest()}




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
        elif use_cache and (stored := committed_set(task)) is not None:
            probe_set = stored
            cache.put(key, probe_set.canonical())
        else:
            with scratch_dir(prefix="bench-probes-") as scratch:
                probe_set = build(task.spec, reference_of(task), Path(scratch), test_limits=limits_for(task.spec),
                                  replay_limits=replay_limits(task),
                                  public_api=get_kind(task.spec.kind).probe_public_api)
            cache.put(key, probe_set.canonical())
        _built[task_id] = probe_set
        return probe_set


def verify_candidate(task: PreparedTask, sources, *, cache=None, replayed: Verification | None = None) -> Verification:
    """Replay the task's probes against the candidate whose source files are ``sources``. ``replayed`` is a
    replay already made of the same candidate (:func:`begin_verification`): when it verified, it stands."""
    from bench.probes.verify import verify

    probe_set = probe_set_for(task)
    key = _verify_key(cache, probe_set, sources)
    if key is not None and (hit := cache.get(key)) is not None:
        return Verification.from_json(json.loads(hit))
    if replayed is not None and replayed.verified:
        result = replayed
    else:
        reference = reference_of(task, with_sources=False)
        with busy(), tree_scratch(task.pristine, "bench-verify-") as scratch:
            result = verify(probe_set, reference, tuple(sources), Path(scratch), limits=replay_limits(task),
                            source_files=task.spec.source_files, reference_again=lambda: reference_of(task).sources)
    if key is not None:
        cache.put(key, json.dumps(result.to_json(), sort_keys=True).encode())
    return result


def _verify_key(cache, probe_set: ProbeSet, sources):
    from bench.loop.signature import candidate_digest

    if cache is None:
        return None
    return cache.key({"probe_set": probe_set.sha256, "candidate": candidate_digest(sources), "kind": "verify-v1"})


_replays: ThreadPoolExecutor | None = None


def begin_verification(task: PreparedTask, sources, *, cache=None):
    """Start the candidate's replay beside its test run, when the task's probe set is already at hand and a
    core is spare for it (:mod:`bench.score.spare_core`); returns the function that gives the verification
    (call it only for a resolved verdict). The replay runs in a sandbox and a tree of its own, so it shares
    nothing with the test run; the time it costs is hidden behind that run's, and a verdict that is not
    resolved simply drops it. Otherwise nothing starts: the set is built, and the replay made, only for a
    resolved verdict."""
    global _replays
    # the replay beside the run only on a core neither it nor the run would take from another run (spare_core)
    if not _probe_set_at_hand(task) or not spare_for(2):
        return lambda: verify_candidate(task, sources, cache=cache)
    probe_set = probe_set_for(task)
    key = _verify_key(cache, probe_set, sources)
    if key is not None and cache.get(key) is not None:
        return lambda: verify_candidate(task, sources, cache=cache)
    with _guard:
        if _replays is None:
            _replays = ThreadPoolExecutor(max_workers=4, thread_name_prefix="bench-replay")
    replay = _replays.submit(_replay_once, task, probe_set, tuple(sources))
    return lambda: verify_candidate(task, sources, cache=cache, replayed=replay.result())


def _replay_once(task: PreparedTask, probe_set: ProbeSet, sources) -> Verification:
    from bench.probes.verify import verify

    with busy(), tree_scratch(task.pristine, "bench-verify-") as scratch:
        return verify(probe_set, reference_of(task, with_sources=False), sources, Path(scratch),
                      limits=replay_limits(task), source_files=task.spec.source_files)


def _probe_set_at_hand(task: PreparedTask) -> bool:
    from bench.probes.probe_set import read
    from bench.store.action_cache import ActionCache

    task_id = task.spec.task_id
    if task_id in _built:
        return True
    cache = ActionCache("probes")
    hit = cache.get(cache.key(cache_key(task)))
    found = read(hit) if hit is not None else committed_set(task)
    if found is not None:
        with _guard:
            _built.setdefault(task_id, found)
    return found is not None


def _own_inputs(task: PreparedTask) -> dict | None:
    """What a committed set of the task must have been made from; None for a task whose code is not kept in
    this repository (its set holds another project's values and is never committed)."""
    from bench.gate.certify import task_files_digest
    from bench.probes.committed import made_from

    if task.root is None:
        return None
    task_files = task_files_digest(task.spec, task.root)
    return made_from(task_files, task.integrity["certificate_sha256"]) if task_files else None


def committed_set(task: PreparedTask) -> ProbeSet | None:
    """The task's committed probe set while it is current (:mod:`bench.probes.committed`), else None."""
    from bench.probes import committed, store

    inputs = _own_inputs(task)
    if inputs is None:
        return None
    summary = store.read_current(task.root, task.spec.task_id, inputs["certificate_sha256"])
    if summary is None:  # the probe version is among the inputs the committed set must have been made from
        return None
    return committed.read(task.root, task.spec.task_id, inputs, summary.probe_set_sha256)


def commit_set(task: PreparedTask, root: Path) -> Path | None:
    """Commit the task's probe set beside its summary when its code lives in this repository."""
    from bench.probes import committed

    inputs = _own_inputs(task)
    return None if inputs is None else committed.write(root, probe_set_for(task), inputs)


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
