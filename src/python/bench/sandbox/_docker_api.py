"""Everything that knows the docker SDK and the Engine API wire format.

``bench.sandbox.docker`` decides *what* a run looks like; this module says it to the daemon. The ``docker``
package is imported inside functions so that importing bench never pulls it in.
"""

from __future__ import annotations

import contextlib
import os
import socket
import struct
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from bench.errors import ImageError, SandboxError
from bench.sandbox.protocol import ExecRequest, Mount

DEFAULT_DOCKER_HOST = "unix:///var/run/docker.sock"
TAG_REPOSITORY_PREFIX = "loopcontrolbench/"
INIT_PROCESSES = 1  # docker's init (PID 1, same uid) counts against pids and nproc besides the command
API_TIMEOUT_SECONDS = 120
MAX_POOL_SIZE = 64
_FRAME_HEADER = struct.Struct(">BxxxL")  # stream id (1 stdout, 2 stderr), 3 pad bytes, payload length


def docker_host() -> str:
    """The daemon endpoint: ``$BENCH_DOCKER_HOST``, else ``$DOCKER_HOST``, else the default socket."""
    from bench import variables

    # DOCKER_HOST is docker's own convention, honoured like the docker CLI does.
    return variables.get("BENCH_DOCKER_HOST") or os.environ.get("DOCKER_HOST") or DEFAULT_DOCKER_HOST


def connect(host: str | None = None):
    """A low-level API client (``docker.APIClient``) talking the daemon's own API version."""
    import docker

    with api_errors(f"cannot reach the docker daemon at {host or docker_host()}"):
        # Each run holds a few connections at once (wait long-poll, attach, calls): room for parallel runs.
        return docker.APIClient(base_url=host or docker_host(), version="auto", timeout=API_TIMEOUT_SECONDS,
                                max_pool_size=MAX_POOL_SIZE)


@contextlib.contextmanager
def api_errors(what: str):
    """Turn the SDK's and its HTTP stack's errors (requests' are OSErrors) into SandboxError."""
    import docker.errors

    try:
        yield
    except (docker.errors.DockerException, OSError) as exc:
        raise SandboxError(f"{what}: {exc}") from exc


# --- images -------------------------------------------------------------------------------------------------


def image_tag(name: str, digest_hex: str) -> str:
    return f"{TAG_REPOSITORY_PREFIX}{name}:{digest_hex[:12]}"


def _layers(api, reference: str) -> tuple[str, ...] | None:
    import docker.errors

    try:
        with api_errors(f"docker could not inspect image {reference}"):
            return tuple(api.inspect_image(reference)["RootFS"].get("Layers") or ())
    except SandboxError as exc:
        if isinstance(exc.__cause__, docker.errors.ImageNotFound):
            return None
        raise


def ensure_imported(api, tar_path: Path, digest_hex: str, name: str) -> str:
    """Import ``tar_path`` once and return its tag; the single layer's diff id must be ``sha256:digest_hex``
    (docker hashes the uncompressed tar stream: equal exactly when both backends run the very same tar)."""
    tag = image_tag(name, digest_hex)
    want = (f"sha256:{digest_hex}",)
    if _layers(api, tag) == want:
        return tag
    if not tar_path.is_file():
        raise ImageError(f"image tar {tar_path} for digest {digest_hex} is missing")
    repository, _, version = tag.rpartition(":")
    try:
        api.import_image_from_file(str(tar_path), repository=repository, tag=version)
    except Exception as exc:  # the SDK raises APIError, requests errors or OSError here
        raise ImageError(f"docker import of {tar_path} failed: {exc}") from exc
    got = _layers(api, tag)
    if got != want:
        with contextlib.suppress(Exception):  # cleanup after a failure that is being reported
            api.remove_image(tag, force=True)
        raise ImageError(f"docker import of {tar_path}: layers {got} != {want} (tar changed or corrupt)")
    return tag


# --- containers ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ContainerPlan:
    """What the container is, in docker's terms; built by the backend, spoken by :func:`create`."""

    name: str
    image: str
    argv: tuple[str, ...]
    user: str  # "uid:gid"
    workdir: Path
    cwd: str
    mounts: tuple[Mount, ...]
    with_stdin: bool
    labels: tuple[tuple[str, str], ...] = ()


def _ulimits(request: ExecRequest):
    import docker.types

    limits = request.limits
    pairs = (
        ("fsize", limits.file_size_bytes),
        ("nofile", limits.nofile),
        ("nproc", limits.pids + INIT_PROCESSES),
        ("core", 0),  # a crashing test must not drop a core file into /work
    )
    return [docker.types.Ulimit(name=name, soft=value, hard=value) for name, value in pairs]


def _mounts(plan: ContainerPlan):
    import docker.types

    # Sources resolved here: the daemon wants absolute paths and must bind what was checked, not a new link.
    work = docker.types.Mount(target="/work", source=os.path.realpath(plan.workdir), type="bind", read_only=False)
    extra = [
        docker.types.Mount(target=m.sandbox_path, source=os.path.realpath(m.host_path), type="bind",
                           read_only=not m.writable)
        for m in plan.mounts
    ]
    return [work, *extra]


def create(api, plan: ContainerPlan, request: ExecRequest) -> None:
    """Create (not start) the container: no network, no capabilities, read-only root, hard limits."""
    limits = request.limits
    host_config = api.create_host_config(
        network_mode="none",
        cap_drop=["ALL"],
        security_opt=["no-new-privileges"],
        read_only=True,
        tmpfs={"/tmp": f"rw,nosuid,nodev,size={limits.tmp_bytes},mode=1777"},
        mounts=_mounts(plan),
        pids_limit=limits.pids + INIT_PROCESSES,
        mem_limit=limits.memory_bytes,
        memswap_limit=limits.memory_bytes,  # equal to the memory limit: no swap
        nano_cpus=int(limits.cpus * 1e9),
        ulimits=_ulimits(request),
        # A small init as PID 1: the command is then an ordinary process (signals, zombie reaping, exit 128+n).
        init=True,
        # Output reaches us only through the attach stream, where it is capped; nothing is kept on disk.
        log_config={"Type": "none", "Config": {}},
    )
    with api_errors(f"docker could not create container {plan.name}"):
        _create_container(api, plan, host_config)


def _create_container(api, plan: ContainerPlan, host_config) -> None:
    api.create_container(
        plan.image,
        command=list(plan.argv),
        name=plan.name,
        user=plan.user,
        hostname="sandbox",
        working_dir=plan.cwd,
        stdin_open=plan.with_stdin,
        network_disabled=True,
        host_config=host_config,
        labels=dict(plan.labels),
        use_config_proxy=False,  # never copy the client's proxy settings into the sandbox
    )


def attach(api, name: str, with_stdin: bool) -> socket.socket:
    """Attach before start, so no output is lost; returns the raw hijacked socket."""
    params = {"stdout": 1, "stderr": 1, "stream": 1, "stdin": 1 if with_stdin else 0}
    with api_errors(f"docker could not attach to {name}"):
        wrapped = api.attach_socket(name, params=params)
    return wrapped._sock  # the SDK hands back a SocketIO around the hijacked connection


def close(sock: socket.socket) -> None:
    """Shut down first: that wakes the stdin and output threads still blocked on the socket."""
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)
    sock.close()


def start(api, name: str) -> None:
    with api_errors(f"docker could not start {name}"):
        api.start(name)


def wait_in_thread(api, name: str, timeout: float) -> threading.Event:
    """An event set once the container is no longer running (or the wait failed: the caller inspects)."""
    exited = threading.Event()

    def wait() -> None:
        try:
            api.wait(name, timeout=timeout)
        except Exception:  # removed meanwhile, daemon gone, or the long-poll timed out
            pass
        finally:
            exited.set()

    threading.Thread(target=wait, name=f"docker-wait-{name}", daemon=True).start()
    return exited


# --- CPU time -----------------------------------------------------------------------------------------------
# docker keeps no usage for an exited container, so CPU time is sampled while it runs: from its own cgroup
# counter when the daemon runs on this host (cheap), else from the stats API (answers about once a second).


def cpu_reader(api, name: str) -> tuple[Callable[[], float | None], str]:
    """A function reading the container's CPU seconds so far (None once it is gone), and its source."""
    try:
        info = api.inspect_container(name)
    except Exception:  # gone already: nothing to sample
        return (lambda: None), "none"
    pid = info.get("State", {}).get("Pid") or 0
    if not pid:  # exited already: docker keeps no usage for it
        return (lambda: None), "none"
    counter = _local_cgroup_counter(pid, info["Id"])
    if counter is not None:
        return counter, "cgroup"
    return (lambda: _stats_cpu_seconds(api, name)), "stats"


def _stats_cpu_seconds(api, name: str) -> float | None:
    try:
        stats = api.stats(name, stream=False, one_shot=True)
        return stats["cpu_stats"]["cpu_usage"]["total_usage"] / 1e9
    except Exception:  # exited or removed between two samples
        return None


def _local_cgroup_counter(pid: int, container_id: str) -> Callable[[], float | None] | None:
    """Reader of the cgroup counter of host process ``pid`` if it is this container's (else None)."""
    try:
        lines = Path(f"/proc/{pid}/cgroup").read_text().splitlines() if pid else []
    except OSError:
        return None
    v1_mounts, v2_mount = _cgroup_mounts()
    for line in lines:
        _, controllers, path = line.split(":", 2)
        if container_id not in path:  # another pid namespace's process, or not a docker cgroup at all
            continue
        if "cpuacct" in controllers.split(",") and "cpuacct" in v1_mounts:
            usage = v1_mounts["cpuacct"] / path.lstrip("/") / "cpuacct.usage"
            return lambda: _read_number(usage, lambda text: int(text) / 1e9)
        if controllers == "" and v2_mount is not None and not v1_mounts:
            usage = v2_mount / path.lstrip("/") / "cpu.stat"
            return lambda: _read_number(usage, lambda text: int(text.split()[1]) / 1e6)  # usage_usec first
    return None


def _cgroup_mounts() -> tuple[dict[str, Path], Path | None]:
    v1, v2 = {}, None
    with open("/proc/self/mountinfo") as mountinfo:
        for line in mountinfo:
            fields = line.split()
            after = fields[fields.index("-") + 1:]
            if after[0] == "cgroup2":
                v2 = Path(fields[4])
            elif after[0] == "cgroup":
                for option in after[2].split(","):
                    v1.setdefault(option, Path(fields[4]))
    return v1, v2


def _read_number(path: Path, parse) -> float | None:
    try:
        return parse(path.read_text())
    except (OSError, ValueError, IndexError):
        return None


@dataclass(frozen=True)
class ContainerState:
    exit_code: int | None
    oom_killed: bool
    running: bool


def state(api, name: str) -> ContainerState:
    with api_errors(f"docker could not inspect {name}"):
        found = api.inspect_container(name)["State"]
    running = bool(found.get("Running"))
    return ContainerState(
        exit_code=None if running else int(found.get("ExitCode", -1)),
        oom_killed=bool(found.get("OOMKilled")),
        running=running,
    )


def kill(api, name: str) -> None:
    import docker.errors

    with contextlib.suppress(docker.errors.APIError):  # already stopped or gone: nothing left to kill
        api.kill(name)


def remove(api, name: str) -> None:
    """``rm -f`` by name; a container that is already gone is fine, anything else is a SandboxError."""
    import docker.errors

    try:
        api.remove_container(name, force=True, v=True)
    except docker.errors.NotFound:
        return
    except (docker.errors.APIError, OSError) as exc:  # requests' errors are OSErrors
        if "already in progress" not in str(exc):
            raise SandboxError(f"cannot remove container {name}: {exc}") from exc


def names_with_prefix(api, prefix: str, label: str = "") -> tuple[str, ...]:
    """Names of all containers (running or not) starting with ``prefix``, optionally with ``label``."""
    found = []
    for container in api.containers(all=True, filters={"label": label} if label else None):
        for raw in container.get("Names") or ():
            if raw.lstrip("/").startswith(prefix):
                found.append(raw.lstrip("/"))
    return tuple(sorted(found))


# --- the attach stream --------------------------------------------------------------------------------------


class CappedStreams:
    """stdout/stderr from the attach stream, at most ``cap`` bytes each; the rest is read and dropped (a
    stalled reader would block the writer in the sandbox and turn a chatty test into a timeout)."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.kept = {1: bytearray(), 2: bytearray()}
        self.truncated = {1: False, 2: False}

    def add(self, stream_id: int, payload: bytes) -> None:
        kept = self.kept.get(stream_id)
        if kept is None:
            return
        room = self.cap - len(kept)
        if len(payload) > room:
            self.truncated[stream_id] = True
            payload = payload[: max(room, 0)]
        kept += payload


def _recv_exactly(sock: socket.socket, size: int) -> bytes | None:
    chunks, remaining = [], size
    while remaining:
        chunk = sock.recv(min(remaining, 1 << 16))
        if not chunk:
            return None
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)


def read_frames(sock: socket.socket, streams: CappedStreams) -> None:
    """Read multiplexed frames until the daemon closes the stream (the container exited)."""
    try:
        while True:
            header = _recv_exactly(sock, _FRAME_HEADER.size)
            if header is None:
                return
            stream_id, length = _FRAME_HEADER.unpack(header)
            while length:
                chunk = sock.recv(min(length, 1 << 16))
                if not chunk:
                    return
                streams.add(stream_id, chunk)
                length -= len(chunk)
    except OSError:
        return  # the socket was closed under us during teardown


def feed_stdin(sock: socket.socket, data: bytes) -> threading.Thread:
    """Write ``data`` to the container's stdin from a thread, then half-close so the command sees EOF."""

    def write() -> None:
        try:
            if data:
                sock.sendall(data)
            sock.shutdown(socket.SHUT_WR)
        except OSError:
            pass  # the command exited without reading all of its input

    thread = threading.Thread(target=write, name="docker-stdin", daemon=True)
    thread.start()
    return thread
