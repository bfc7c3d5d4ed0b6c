"""A real Dask cluster on 127.0.0.1 — one ``dask scheduler`` and ``dask worker`` processes — for tests and
benchmarks.

The processes are started as ``python -m distributed.cli.dask_scheduler`` / ``dask_worker`` with this
process's interpreter and import path (``bench.testing.support.child_env``), from the benchmark checkout, so a
worker imports ``bench`` exactly as this process does; in production a worker runs from the pex or venv that
holds the harness. Workers run without a nanny, so SIGKILL to a worker is the death of that worker. Every
process is in its own session; :meth:`LoopbackCluster.stop` kills each one by its id with bounded waits, and
each dies with the process that started it.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Mapping

READY_SECONDS = 90.0
STOP_SECONDS = 10.0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class LoopbackCluster:
    """Start with :func:`start_cluster`; use as a context manager so the processes always stop."""

    def __init__(self, root: Path, log_dir: Path, env: Mapping[str, str]) -> None:
        self.root, self.log_dir, self.env = root, log_dir, dict(env)
        self.address = f"tcp://127.0.0.1:{free_port()}"
        self.scheduler: subprocess.Popen | None = None
        self.workers: list[subprocess.Popen] = []

    def __enter__(self) -> "LoopbackCluster":
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def _spawn(self, name: str, args: list[str]) -> subprocess.Popen:
        self.log_dir.mkdir(parents=True, exist_ok=True)
        with open(self.log_dir / f"{name}.log", "ab") as log:
            return subprocess.Popen([sys.executable, "-m", *args], cwd=self.root, env=self.env,
                                    stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                    start_new_session=True, preexec_fn=_die_with_parent())

    def start_scheduler(self) -> None:
        port = self.address.rsplit(":", 1)[1]
        self.scheduler = self._spawn("scheduler", ["distributed.cli.dask_scheduler", "--host", "127.0.0.1",
                                                   "--port", port, "--no-dashboard"])

    def add_worker(self) -> subprocess.Popen:
        index = len(self.workers)
        folder = self.log_dir / f"worker-{index}"
        folder.mkdir(parents=True, exist_ok=True)
        worker = self._spawn(f"worker-{index}", [
            "distributed.cli.dask_worker", self.address, "--host", "127.0.0.1", "--nthreads", "1",
            "--resources", "sandbox=1", "--no-nanny", "--no-dashboard", "--local-directory", str(folder),
            "--name", f"worker-{index}"])
        self.workers.append(worker)
        return worker

    def wait_ready(self, timeout: float = READY_SECONDS) -> dict[str, str]:
        """Wait until every live worker has joined; returns worker name -> address."""
        from distributed import Client

        from bench.cluster.client import worker_info

        deadline = time.monotonic() + timeout
        live = sum(w.poll() is None for w in self.workers)
        while True:
            try:
                with Client(self.address, timeout=5, set_as_default=False) as client:
                    client.wait_for_workers(live, timeout=max(1.0, deadline - time.monotonic()))
                    return {info["name"]: address for address, info in worker_info(client).items()}
            except (OSError, TimeoutError):
                if time.monotonic() > deadline or (self.scheduler and self.scheduler.poll() is not None):
                    raise RuntimeError(f"cluster at {self.address} not ready; logs in {self.log_dir}")
                time.sleep(0.5)

    def kill_worker(self, index: int) -> None:
        worker = self.workers[index]
        if worker.poll() is None:
            os.kill(worker.pid, signal.SIGKILL)
        worker.wait(timeout=30)

    def stop(self) -> None:
        """Workers first, then the scheduler: SIGTERM, a bounded wait, then SIGKILL (a worker's own close can
        hang once its scheduler is gone)."""
        for group in (self.workers, [self.scheduler]):
            live = [p for p in group if p is not None and p.poll() is None]
            for process in live:
                process.send_signal(signal.SIGTERM)
            for process in live:
                try:
                    process.wait(timeout=STOP_SECONDS)
                except subprocess.TimeoutExpired:
                    os.kill(process.pid, signal.SIGKILL)
                    process.wait(timeout=STOP_SECONDS)


def _die_with_parent():
    """A pre-exec hook that makes the child get SIGKILL when this process dies (Linux PR_SET_PDEATHSIG), so a
    test runner that kills the test (a timeout, a retry) leaves no scheduler or worker behind. libc is loaded
    here, before the fork: the hook itself only makes the system call."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    pr_set_pdeathsig = 1
    return lambda: libc.prctl(pr_set_pdeathsig, signal.SIGKILL)


def start_cluster(workers: int, *, root: Path, log_dir: Path, env: Mapping[str, str] | None = None,
                  scheduler_env: Mapping[str, str] | None = None) -> LoopbackCluster:
    """A scheduler and ``workers`` workers, all joined; the caller must stop it (``with``)."""
    from bench.testing.support import child_env

    base = child_env({"BENCH_ROOT": str(root), "BENCH_NO_PROGRESS": "1", **(env or {})})
    cluster = LoopbackCluster(root, log_dir, base)
    try:
        cluster.env = {**base, **(scheduler_env or {})}
        cluster.start_scheduler()
        cluster.env = base
        for _ in range(workers):
            cluster.add_worker()
        cluster.wait_ready()
    except BaseException:
        cluster.stop()
        raise
    return cluster

