"""What every sandbox backend accepts and returns.

Untrusted code (a repository's build backend and tests, a model's edit) runs only through this interface. A
request carries argv (never a shell string), the writable work dir, an explicit environment (nothing is
inherited from the host), limits and a network policy; the result says how the run ended.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol, runtime_checkable


class NetworkPolicy(str, enum.Enum):
    NONE = "none"
    # Only HTTPS to the package index hosts, through a host-side allowlist proxy on a unix socket.
    INDEX_PROXY = "index-proxy"


@dataclass(frozen=True)
class Limits:
    # The run's time. Where the backend counts the run's CPU time (bwrap with a cgroup), it is a CPU budget:
    # the run stops once its processes have used this many CPU seconds, so a slow candidate is stopped alike
    # on a quiet machine and under load; a run that mostly waits (a sleep, a deadlock: under a tenth of a CPU)
    # is stopped when this many wall seconds have passed, and any run at ``wall_slack`` times it. Elsewhere it
    # is the wall-clock limit.
    wall_seconds: float = 600.0
    wall_slack: float = 3.0
    memory_bytes: int = 4 << 30
    pids: int = 512
    cpus: float = 1.0
    file_size_bytes: int = 1 << 30
    output_bytes: int = 1 << 20  # per stream; the rest is dropped and the result says so
    nofile: int = 4096
    tmp_bytes: int = 1 << 30  # size of the sandbox's private /tmp (a tmpfs; its pages count as memory too)
    # Host guard: stop the run once the work dir's filesystem has grown by this much (many files, each under
    # file_size_bytes, could otherwise fill the host disk). Measured on the whole filesystem, so generous.
    disk_bytes: int = 8 << 30


@dataclass(frozen=True)
class Mount:
    """An extra bind into the sandbox (e.g. a cached venv or a wheelhouse); read-only unless stated."""

    host_path: Path
    sandbox_path: str
    writable: bool = False
    # An empty read-only cover that hides part of the image or a venv (bench.verdict.masks); the only kind of
    # mount allowed inside the image's /usr and /etc trees.
    mask: bool = False


@dataclass(frozen=True)
class Channel:
    """A descriptor the sandboxed process inherits, in place of a file both sides could reach by path.

    A *send* channel (``receive == 0``) carries ``send`` into the sandbox in a sealed in-memory file; a *receive*
    channel is a pipe whose reading end stays with the host, which keeps up to ``receive`` bytes of what the
    process writes (the rest is drained and dropped). Nothing of either exists as a name in the sandbox's file
    system: what leaves through a receive channel cannot be rewritten, linked or replaced afterwards. The process
    finds channel ``name`` as the path in ``BENCH_CHANNEL_<NAME>`` (``/dev/fd/N`` where the backend passes
    descriptors; a private file where it cannot — see the backend).
    """

    name: str  # lower-case letters; the environment variable is BENCH_CHANNEL_<NAME>
    send: bytes = b""
    receive: int = 0  # byte cap of a receive channel; 0 makes it a send channel


@dataclass(frozen=True)
class Received:
    """What the process wrote into a receive channel, as far as the host kept it."""

    name: str
    data: bytes
    truncated: bool  # more than the channel's cap was written (the rest was dropped)


def channel_variable(name: str) -> str:
    return f"BENCH_CHANNEL_{name.upper()}"


@dataclass(frozen=True)
class ExecRequest:
    argv: tuple[str, ...]
    workdir: Path  # host path; the only writable place, seen inside as /work
    image_root: Path  # unpacked rootfs of the image (its /usr and /etc are bound read-only)
    env: tuple[tuple[str, str], ...] = ()
    limits: Limits = field(default_factory=Limits)
    network: NetworkPolicy = NetworkPolicy.NONE
    mounts: tuple[Mount, ...] = ()
    cwd: str = "/work"
    stdin: bytes = b""
    image_digest: str = ""  # the docker backend imports the tar by digest
    proxy_socket: Path | None = None  # the IndexProxy's unix socket; required with NetworkPolicy.INDEX_PROXY
    channels: tuple[Channel, ...] = ()
    # Work-dir relative paths no process of the run may change, rename or remove (files, or folders that may
    # gain no entry): immutable for the run where the harness is root, else bound read-only over themselves.
    frozen: tuple[str, ...] = ()
    # One address layout for every run that asks (a type's hash is its address): what the run records is then
    # the same each time. Asked only where nothing of a candidate runs (a probe set's recording): a run that
    # compares a candidate's answers keeps the layout random, so values hanging on addresses vary and are masked.
    fixed_addresses: bool = False


@dataclass(frozen=True)
class ExecResult:
    exit_code: int | None  # None when killed by a signal
    signal: int | None
    timed_out: bool
    oom_killed: bool
    stdout: bytes
    stderr: bytes
    stdout_truncated: bool
    stderr_truncated: bool
    wall_seconds: float
    cpu_seconds: float
    enforcement: tuple[str, ...] = ()  # how limits were enforced, e.g. ("cgroup-v1:memory", "prlimit:fsize")
    notes: tuple[str, ...] = ()  # degraded modes, e.g. "cgroups not writable: prlimit fallback"
    received: tuple[Received, ...] = ()  # one per receive channel of the request

    def received_from(self, name: str) -> Received | None:
        return next((r for r in self.received if r.name == name), None)

    @property
    def ok(self) -> bool:
        return self.exit_code == 0 and not self.timed_out and not self.oom_killed


@runtime_checkable
class Sandbox(Protocol):
    name: str

    def run(self, request: ExecRequest) -> ExecResult:
        """Run ``request`` to completion and tear everything down (also on KeyboardInterrupt)."""
        ...
