"""The gate fanned out over a Dask cluster: ``bench certify SELECTOR --cluster tcp://HOST:8786``.

Each task is certified on a worker exactly as :func:`bench.gate.certify.certify` does locally (from the
worker's cache when its inputs are unchanged), with the worker's checkout and its own ``BENCH_MIRROR_DIR``;
the worker hands the certificate back and the client alone writes ``results/certificates/``. A certificate
whose lock hash, image digest or harness version differs from the client's pins is refused
(:class:`~bench.errors.EnvironmentMismatch`). A task whose workers all died stops the run with a
ClusterError; certificates already made are cached on the workers, so running the command again is cheap.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Sequence

from bench.errors import EnvironmentMismatch


def certify_on_worker(spec, *, k: int, sandbox_name: str, use_cache: bool):
    """What a worker runs for one task (its checkout: ``BENCH_ROOT`` or its working directory)."""
    from bench.gate.certify import certify
    from bench.variables import find_root

    return certify(spec, find_root(), k=k, sandbox_name=sandbox_name, use_cache=use_cache)


def check_certificate(certificate, expected) -> None:
    """The worker certified in the environment the client pins, or the certificate is refused."""
    from bench import __version__

    seen = {"lock_sha256": (certificate.lock_sha256, expected.lock_sha256),
            "image_digest": (certificate.image_digest, expected.image_digest),
            "harness_version": (certificate.harness_version, __version__)}
    differ = [f"{name} {mine} on the client, {theirs} on the worker" for name, (theirs, mine) in seen.items()
              if theirs and theirs != mine]
    if differ:
        raise EnvironmentMismatch(f"{certificate.task_id}: " + "; ".join(differ))


def certify_on_cluster(address: str, specs: Sequence, root: Path, *, k: int, sandbox_name: str,
                       use_cache: bool, deliver: Callable) -> None:
    """Certify every spec on the cluster; ``deliver(spec, outcome)`` in this thread as each finishes."""
    import uuid

    from bench.cluster.client import RESOURCE, cancel, check_workers, connect, release_as_completed
    from bench.cluster.pins import environment_pins

    client = connect(address)
    futures: dict = {}
    try:
        if specs:
            check_workers(client, address, harness_module="bench.gate.remote_certify")
        run_id = uuid.uuid4().hex
        for index, spec in enumerate(specs):
            future = client.submit(certify_on_worker, spec, k=k, sandbox_name=sandbox_name, use_cache=use_cache,
                                   key=f"bench-certify-{run_id}-{index}", pure=False, resources={RESOURCE: 1})
            futures[future] = spec
        for future, spec in release_as_completed(client, futures):
            outcome = _result(future, spec)
            check_certificate(outcome.certificate, environment_pins(spec, root))
            deliver(spec, outcome)
    except BaseException:
        cancel(client, futures)
        raise
    finally:
        client.close()


def _result(future, spec):
    return gate_result(future, f"certifying {spec.task_id}")


def gate_result(future, what: str):
    """A worker's result; its BenchError as if raised here, any other failure (a lost worker, one that cannot
    run the gate) a ClusterError naming ``what`` was being done."""
    from distributed.scheduler import KilledWorker

    from bench.errors import BenchError, ClusterError

    try:
        return future.result()
    except BenchError:
        raise  # as from a local gate: an environment that cannot be built stops the batch
    except (KilledWorker, Exception) as exc:  # noqa: BLE001
        raise ClusterError(f"{what} failed on the cluster: {type(exc).__name__}: {exc}"[:800]) from exc
