"""What every use of a Dask cluster shares: connecting, waiting for able workers, the one resource each unit
of work asks for, and handing out or cancelling futures. Dask is imported inside the functions only, so
importing the harness never imports it.
"""

from __future__ import annotations

import importlib.util
from importlib.machinery import ModuleSpec

from bench.errors import ClusterError

RESOURCE = "sandbox"  # workers start with `--resources sandbox=1`: one sandboxed run at a time each
CONNECT_SECONDS = 30.0
WORKERS_WAIT_SECONDS = 60.0


def connect(address: str, seconds: float = CONNECT_SECONDS):
    from distributed import Client

    try:
        return Client(address, timeout=seconds, set_as_default=False)
    except (OSError, TimeoutError) as exc:
        raise ClusterError(f"cannot reach the Dask scheduler at {address}: {exc}") from exc


def check_workers(client, address: str, *, harness_module: str,
                  seconds: float = WORKERS_WAIT_SECONDS) -> None:
    """At least one worker, every worker able to import ``harness_module`` (what it will run), some worker
    offering the resource."""
    try:
        client.wait_for_workers(1, timeout=seconds)
    except (OSError, TimeoutError) as exc:
        raise ClusterError(f"no worker joined {address} within {seconds:.0f} s") from exc
    # A worker that cannot import the harness dies on the first unit it is sent: refuse to start instead.
    found = client.run(importlib.util.find_spec, harness_module, on_error="return")
    missing = sorted(a for a, spec in found.items() if not isinstance(spec, ModuleSpec))
    if missing:
        raise ClusterError(f"workers that cannot import the harness (run them from bench.pex or a venv with "
                           f"it installed): {', '.join(missing)}")
    if not any(info.get("resources", {}).get(RESOURCE) for info in worker_info(client).values()):
        raise ClusterError(f"no worker of {address} offers the resource {RESOURCE!r}: start workers with "
                           f"`dask worker {address} --nthreads 1 --resources {RESOURCE}=1`")


def release_as_completed(client, futures: dict):
    """Each finished future with what it was submitted for, released once handed out (a worker lost later
    must not make the cluster compute it again)."""
    from distributed import as_completed

    for future in as_completed(list(futures), loop=client.loop):
        yield future, futures.pop(future)
        future.release()


def cancel(client, futures) -> None:
    try:
        client.cancel(list(futures), force=True)
    except Exception:  # noqa: BLE001  the scheduler may be gone; it then drops the client's tasks itself
        pass


def worker_info(client) -> dict:
    """Address -> info of every worker (newer clients list only the first few unless asked for all)."""
    import inspect

    every = {"n_workers": -1} if "n_workers" in inspect.signature(client.scheduler_info).parameters else {}
    return client.scheduler_info(**every)["workers"]
