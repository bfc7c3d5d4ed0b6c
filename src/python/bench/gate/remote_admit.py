"""Admission fanned out over a Dask cluster: ``bench admit ... --cluster`` and ``bench mutate --admit --cluster``.

A worker does what a local admission does up to the decision — resolve the lock in its sandbox, build the
environment, run the gate (for a mutant: its release's suite once per worker, then the mutant's own runs) —
and hands back the certificate with the lock it was made with. The client alone adds to the pool: it writes
the lock, then admits or drops the candidate exactly as :func:`bench.gate.admit.conclude` does locally, in the
order the candidates were given, so duplicates and a library's cap fall where they fall locally and the files
written are the same bytes. A certificate made with another image than the client's pin, or with a lock whose
hash differs from the one the client wrote for its release, is refused (:class:`EnvironmentMismatch`).
Workers read PR sources from their own ``BENCH_MIRROR_DIR`` or clone cache; mutants need only PyPI.
"""

from __future__ import annotations

import atexit
import threading
import time
import uuid
from pathlib import Path
from typing import Callable, Sequence

from bench.errors import EnvironmentMismatch

_RELEASE_LOCK = threading.Lock()
_OPEN: dict = {}  # this worker process's open release: sdist sha256 → _Release (one at a time)


def gate_on_worker(candidate: dict, *, k: int, sandbox_name: str, relock: bool, max_targets: int | None,
                   relock_shared: bool = False):
    """What a worker runs for one PR or synthetic candidate: lock and certify it in its own checkout."""
    from bench.gate.admit import gate_candidate
    from bench.variables import find_root

    return gate_candidate(candidate, find_root(), k=k, sandbox_name=sandbox_name, mirror=None, relock=relock,
                          max_targets=max_targets, relock_shared=relock_shared)


def certify_mutant_on_worker(candidate: dict, *, k: int, sandbox_name: str, relock: bool,
                             max_targets: int | None) -> tuple:
    """What a worker runs for one mutant: (certificate, the release's lock bytes, seconds it took). The release
    stays open for the next mutant of the same release sent here."""
    from bench.spec.load import spec_from_document
    from bench.variables import find_root

    started = time.monotonic()
    root = find_root()
    spec = spec_from_document(candidate, path=str(root / "tasks" / "_candidates" / f"{candidate['task_id']}.json"))
    with _RELEASE_LOCK:
        release = _release_for(spec, root, k=k, sandbox_name=sandbox_name, relock=relock)
        certificate = release.certify_mutant(spec, max_targets=max_targets)
    return certificate, release.lock_bytes, time.monotonic() - started


def _release_for(spec, root: Path, *, k: int, sandbox_name: str, relock: bool):
    from bench.gate.mutation_batch import _open_release

    key = spec.sdist.sha256
    if key not in _OPEN:
        _close_releases()
        _OPEN[key] = _open_release(spec, root, k=k, sandbox_name=sandbox_name, relock=relock)
    return _OPEN[key]


@atexit.register
def _close_releases() -> None:
    """A worker that stops removes the scratch folder of the release it holds."""
    for release in _OPEN.values():
        release.close()
    _OPEN.clear()


def admit_on_cluster(address: str, candidates: Sequence[dict], root: Path, *, k: int, sandbox_name: str,
                     relock: bool, max_targets: int | None, deliver: Callable, relock_shared: bool = False) -> None:
    """Gate every PR or synthetic candidate on the cluster; admit or drop each here, in the order given. The
    synthetic tasks' shared lock is written here only when there is none or ``relock_shared``: a worker
    whose copy differs is refused, never copied over this checkout's."""
    from bench.gate.admit import finish
    from bench.gate.shared_lock import shares_lock

    kwargs = {"k": k, "sandbox_name": sandbox_name, "relock": relock, "max_targets": max_targets,
              "relock_shared": relock_shared}
    with _Session(address) as session:
        futures = [session.submit(gate_on_worker, doc, **kwargs) for doc in candidates]
        for doc, future in zip(candidates, futures):
            gated = session.result(future, doc["task_id"])
            if gated.certificate is not None:
                keep = shares_lock(gated.spec) and not relock_shared and (root / gated.spec.lockfile).exists()
                _adopt(gated.spec, gated.certificate, gated.lock_bytes, root, first_of_release=not keep)
            deliver(finish(doc, gated, root, k=k, sandbox_name=sandbox_name, max_targets=max_targets))
    _sync(root)


def admit_mutations_on_cluster(candidates: Sequence[dict], root: Path, address: str, *, k: int, sandbox_name: str,
                               max_targets: int | None, cap: int | None, relock: bool,
                               on_result: Callable | None) -> list:
    """:func:`bench.gate.mutation_batch.admit_mutations` with the runs on the cluster: each release's mutants go
    preferably to one worker (its environment and suite runs are made once there), releases spread over the
    workers, and the client concludes every release's mutants in order."""
    from bench.gate.mutation_batch import BatchOutcome, capped, judge_in_order, pending, report_refused
    from bench.spec.load import discover, load_all

    groups: dict[str, list[dict]] = {}
    for doc in candidates:
        groups.setdefault(doc["sdist"]["sha256"], []).append(doc)
    pool = list(load_all(discover(root)))
    kwargs = {"k": k, "sandbox_name": sandbox_name, "relock": relock, "max_targets": max_targets}
    outcomes = []
    with _Session(address) as session:
        plans = []
        for index, docs in enumerate(groups.values()):
            todo, skipped, refused = pending(docs, root, pool)
            report_refused(refused, on_result)
            runs = todo and not capped(pool, todo[0][1], cap)
            futures = [session.submit(certify_mutant_on_worker, doc, worker_index=index, **kwargs)
                       for doc, _ in todo] if runs else []
            plans.append((todo if runs else [], skipped, refused, futures))
        for todo, skipped, refused, futures in plans:
            started, slowest = time.monotonic(), [0.0]

            def certify_one(position: int, spec, futures=futures):
                certificate, lock_bytes, seconds = session.result(futures[position], spec.task_id)
                _adopt(spec, certificate, lock_bytes, root, first_of_release=position == 0)
                slowest[0] = max(slowest[0], seconds)
                return certificate

            admissions = judge_in_order(todo, certify_one, root, pool, k=k, sandbox_name=sandbox_name,
                                        max_targets=max_targets, cap=cap, on_result=on_result)
            session.cancel(futures[len(admissions):])  # past the library's cap: not needed
            outcomes.append(BatchOutcome(refused + admissions, skipped, 0.0, time.monotonic() - started))
    _sync(root)
    return outcomes


def _adopt(spec, certificate, lock_bytes: bytes, root: Path, *, first_of_release: bool) -> None:
    """Write the worker's lock here (the first of a release), and refuse a certificate whose lock or image is
    not the one this checkout pins."""
    from bench.environment.image import image_folder, read_pin
    from bench.store.action_cache import write_atomic
    from bench.store.canonical import sha256_bytes

    path = root / spec.lockfile
    if first_of_release and (not path.exists() or path.read_bytes() != lock_bytes):
        write_atomic(path, lock_bytes)
    pinned_lock = sha256_bytes(path.read_bytes()) if path.exists() else ""
    pinned_image, _ = read_pin(image_folder(spec.image, root))
    differ = []
    if certificate.lock_sha256 != pinned_lock:
        differ.append(f"lock {pinned_lock} here, {certificate.lock_sha256} on the worker")
    if pinned_image and certificate.image_digest != pinned_image:
        differ.append(f"image {pinned_image} here, {certificate.image_digest} on the worker")
    if differ:
        raise EnvironmentMismatch(f"{spec.task_id}: " + "; ".join(differ))


def _sync(root: Path) -> None:
    from bench.gate.admit import sync_build

    sync_build(root)


class _Session:
    """One client connection: submit units with the sandbox resource, read results, cancel on the way out."""

    def __init__(self, address: str) -> None:
        self.address = address
        self.run_id = uuid.uuid4().hex
        self.futures: list = []

    def __enter__(self) -> "_Session":
        from bench.cluster.client import check_workers, connect, worker_info

        self.client = connect(self.address)
        try:
            check_workers(self.client, self.address, harness_module="bench.gate.remote_admit")
            self.workers = sorted(worker_info(self.client))
        except BaseException:
            self.client.close()
            raise
        return self

    def __exit__(self, kind, *exc) -> None:
        if kind is not None:
            self.cancel(self.futures)
        self.client.close()

    def submit(self, function, *args, worker_index: int | None = None, **kwargs):
        from bench.cluster.client import RESOURCE

        placement = {}
        if worker_index is not None and self.workers:
            placement = {"workers": [self.workers[worker_index % len(self.workers)]], "allow_other_workers": True}
        future = self.client.submit(function, *args, key=f"bench-admit-{self.run_id}-{len(self.futures)}",
                                    pure=False, resources={RESOURCE: 1}, **placement, **kwargs)
        self.futures.append(future)
        return future

    def result(self, future, task_id: str):
        from bench.gate.remote_certify import gate_result

        value = gate_result(future, f"admitting {task_id}")
        future.release()
        return value

    def cancel(self, futures) -> None:
        from bench.cluster.client import cancel

        if futures:
            cancel(self.client, list(futures))
