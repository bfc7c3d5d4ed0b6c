"""The docker sandbox backend: one throw-away container per run, from the same rootfs tar bwrap uses.

The image is ``docker import`` of the cached rootfs tar named by ``ExecRequest.image_digest``; the imported
layer's diff id must equal that digest. Each run gets a container ``lcb-<uuid>`` with no network, no
capabilities, no-new-privileges, a read-only root, a sized tmpfs /tmp, an unprivileged uid of its own (the
same per-run uid pool as bwrap, see ``_identity``), cgroup limits (memory without swap, pids, cpus), ulimits
(fsize, nofile, nproc, core), a wall-clock deadline and the disk-growth guard. The container is killed and
removed by name on every path out of :meth:`DockerSandbox.run` (timeout, error, KeyboardInterrupt): killing a
docker *client* leaves the container running.

The daemon is ``$BENCH_DOCKER_HOST``, else ``$DOCKER_HOST``, else the default socket;
:func:`bench.sandbox.dockerd.private_dockerd` starts a private one.
"""

from __future__ import annotations

import os
import re
import threading
import time
import uuid
from dataclasses import replace
from pathlib import Path
from typing import Callable

from bench import profile
from bench.errors import ImageError, SandboxError
from bench.sandbox import _docker_api, _frozen, _identity, _requests
from bench.sandbox._capture import WATCH_INTERVAL, disk_growth_watch
from bench.sandbox._file_channels import FileChannels
from bench.sandbox.protocol import ExecRequest, ExecResult, NetworkPolicy
from bench.sandbox.registry import register

CONTAINER_PREFIX = "lcb-"
TEARDOWN_JOIN_SECONDS = 10.0
CPU_SAMPLE_SECONDS = 0.1
PID_LABEL = "loopcontrolbench.pid"
_ENFORCEMENT = (
    "docker:network-none",
    "docker:cap-drop-all",
    "docker:no-new-privileges",
    "docker:read-only-root",
    "docker:tmpfs-size",
    "docker:init",
    "cgroup:memory",
    "cgroup:memory-swap",
    "cgroup:pids",
    "cgroup:cpus",
    "ulimit:fsize",
    "ulimit:nofile",
    "ulimit:nproc",
    "ulimit:core",
)
_CPU_NOTES = {
    "cgroup": "cpu time sampled from the container's cgroup every 0.1 s while it ran (a lower bound)",
    "stats": "cpu time sampled from docker stats while it ran (a lower bound; the daemon answers ~1/s)",
    "none": "cpu time not measured (the container ended before it could be sampled)",
}
_import_lock = threading.Lock()
_active: set[str] = set()
_active_lock = threading.Lock()


@register("docker")
class DockerSandbox:
    name = "docker"

    def __init__(self, docker_host: str | None = None) -> None:
        self._docker_host = docker_host
        self._api_client = None

    def run(self, request: ExecRequest) -> ExecResult:
        _requests.validate(request, needs_image_root=False)
        api = self._api()
        image = _import_image(api, request.image_digest)
        channels = FileChannels(request.channels)
        try:
            request, freeze = _frozen.plan(request)
            result = self._run(api, image, replace(request, env=(*request.env, *channels.env),
                                                   mounts=(*request.mounts, *channels.mounts)), freeze)
            profile.sandbox_run(result.wall_seconds)
            return replace(result, received=channels.collect()) if request.channels else result
        finally:
            channels.close()

    def _run(self, api, image: str, request: ExecRequest, freeze: bool) -> ExecResult:
        argv, mounts = _command_and_mounts(request)
        writable = (Path(request.workdir), *(Path(m.host_path) for m in mounts if m.writable))
        with _identity.run_identity() as identity:
            plan = _docker_api.ContainerPlan(
                name=f"{CONTAINER_PREFIX}{uuid.uuid4().hex}",
                image=image,
                argv=argv,
                user=f"{identity.uid}:{identity.gid}",
                workdir=Path(request.workdir),
                cwd=request.cwd,
                mounts=mounts,
                with_stdin=bool(request.stdin),
                labels=(("loopcontrolbench", "sandbox"), (PID_LABEL, str(os.getpid()))),
            )
            return _run_and_tear_down(api, plan, request, identity, writable, freeze)

    def leftovers(self) -> tuple[str, ...]:
        """Containers this process created that are not part of a run in progress (should be none)."""
        found = _docker_api.names_with_prefix(self._api(), CONTAINER_PREFIX, f"{PID_LABEL}={os.getpid()}")
        with _active_lock:
            return tuple(name for name in found if name not in _active)

    def _api(self):
        if self._api_client is None:
            self._api_client = _docker_api.connect(self._docker_host or _docker_api.docker_host())
        return self._api_client


def _run_and_tear_down(api, plan, request: ExecRequest, identity, writable, freeze: bool) -> ExecResult:
    """One run; on every way out the container is killed and removed and the trees handed back."""
    owners = _owners(writable) if identity.drop_privileges else ()
    with _active_lock:
        _active.add(plan.name)
    result = None
    frozen = _frozen.Frozen()
    try:
        for owner in owners:
            _identity.chown_tree(owner.path, identity.uid, identity.gid)
        if freeze:  # after the hand-over: an immutable file's owner cannot change either
            frozen = _frozen.freeze_all(Path(request.workdir), request.frozen)
        result = _Run(api, plan, request).execute()
    finally:
        try:
            # After a normal end the container has exited already and `rm -f` alone is enough.
            _teardown(api, plan.name, kill_first=result is None)
        finally:
            frozen.thaw()
            _identity.hand_back(owners)
            with _active_lock:
                _active.discard(plan.name)
    notes = result.notes
    if not identity.drop_privileges:
        notes = ("not root: the sandbox runs as the caller's uid", *notes)
    return replace(result, enforcement=(*_ENFORCEMENT, f"user:{plan.user}"), notes=notes)


def _owners(paths) -> tuple[_identity.Owner, ...]:
    """Who owns each writable tree now, recorded before anything is chowned (so it can always go back)."""
    owners = []
    for path in paths:
        info = os.stat(path, follow_symlinks=False)
        owners.append(_identity.Owner(path, info.st_uid, info.st_gid))
    return tuple(owners)


# --- image --------------------------------------------------------------------------------------------------


def _digest_hex(digest: str) -> str:
    hexpart = digest.removeprefix("sha256:")
    if not re.fullmatch(r"[0-9a-f]{64}", hexpart):
        raise ImageError(f"the docker backend needs ExecRequest.image_digest as a sha256, got {digest!r}")
    return hexpart


def _image_tar(digest_hex: str) -> Path:
    from bench.sandbox.image_store import cached_tar_path

    return cached_tar_path(digest_hex)


def _import_image(api, digest: str) -> str:
    digest_hex = _digest_hex(digest)
    # One import at a time in this process; two processes importing at once both end with a correct tag.
    with _import_lock:
        return _docker_api.ensure_imported(api, _image_tar(digest_hex), digest_hex, "rootfs")


# --- request → container ------------------------------------------------------------------------------------


def _command_and_mounts(request: ExecRequest):
    """The argv run in the container (env cleared and set explicitly) and the extra binds."""
    env, argv, mounts = tuple(request.env), tuple(request.argv), tuple(request.mounts)
    if request.network is NetworkPolicy.INDEX_PROXY:
        if request.proxy_socket is None:
            raise SandboxError("network policy index-proxy needs ExecRequest.proxy_socket")
        from bench.sandbox.index_proxy import proxy_plan

        plan = proxy_plan(Path(request.proxy_socket))
        env, argv, mounts = (*env, *plan.env), (*plan.argv_prefix, *argv), (*mounts, *plan.mounts)
    elif request.network is not NetworkPolicy.NONE:
        raise SandboxError(f"network policy {request.network!r} is not supported by the docker backend")
    # docker adds PATH, HOME and a random HOSTNAME of its own; `env -i` leaves exactly the requested ones.
    # "--" first, so a program name starting with "-" is not read as an option of env.
    assignments = tuple(f"{key}={value}" for key, value in env)
    return ("/usr/bin/env", "-i", "--", *assignments, *argv), mounts


# --- one run ------------------------------------------------------------------------------------------------


class _Run:
    def __init__(self, api, plan: _docker_api.ContainerPlan, request: ExecRequest) -> None:
        self.api, self.plan, self.request = api, plan, request
        self.cpu = 0.0
        self.cpu_source = "none"

    def execute(self) -> ExecResult:
        api, plan, limits = self.api, self.plan, self.request.limits
        _docker_api.create(api, plan, self.request)
        sock = _docker_api.attach(api, plan.name, plan.with_stdin)
        streams = _docker_api.CappedStreams(limits.output_bytes)
        reader = threading.Thread(target=_docker_api.read_frames, args=(sock, streams), daemon=True)
        reader.start()
        try:
            # The guard's baseline is read before the start: a fast writer can put its limit down before the
            # first look otherwise, and that growth would count as the baseline.
            disk_grew = disk_growth_watch(Path(self.request.workdir), limits.disk_bytes)
            started = time.monotonic()
            _docker_api.start(api, plan.name)
            if plan.with_stdin:
                _docker_api.feed_stdin(sock, self.request.stdin)
            exited = _docker_api.wait_in_thread(api, plan.name, limits.wall_seconds + 60)
            stop_reason = self._watch(exited, started, disk_grew)
            wall = time.monotonic() - started
            if stop_reason:
                _docker_api.kill(api, plan.name)
                exited.wait(TEARDOWN_JOIN_SECONDS)
            reader.join(TEARDOWN_JOIN_SECONDS)
        finally:
            _docker_api.close(sock)
        final = _docker_api.state(api, plan.name)
        if final.running:
            raise SandboxError(f"container {plan.name} is still running after the run ended")
        exit_code, signal = _exit_status(final.exit_code)
        return ExecResult(
            exit_code=exit_code,
            signal=signal,
            timed_out=stop_reason == "timeout",
            oom_killed=final.oom_killed,
            stdout=bytes(streams.kept[1]),
            stderr=bytes(streams.kept[2]),
            stdout_truncated=streams.truncated[1],
            stderr_truncated=streams.truncated[2],
            wall_seconds=wall,
            cpu_seconds=self.cpu,
            notes=(*((stop_reason,) if stop_reason not in ("", "timeout") else ()), _CPU_NOTES[self.cpu_source],
                   *(("addresses randomised: docker's seccomp profile refuses a fixed layout",)
                     if self.request.fixed_addresses else ())),
        )

    def _watch(self, exited: threading.Event, started: float, disk_grew: Callable[[], str]) -> str:
        """Wait for the exit while enforcing the deadline and the disk guard; why the run must stop, or ""."""
        deadline = started + self.request.limits.wall_seconds
        sampler = threading.Thread(target=self._sample_cpu, args=(exited,), daemon=True)
        sampler.start()
        while not exited.wait(max(0.0, min(WATCH_INTERVAL, deadline - time.monotonic()))):
            if time.monotonic() >= deadline:
                return "timeout"
            reason = disk_grew()
            if reason:
                return reason
        return ""

    def _sample_cpu(self, exited: threading.Event) -> None:
        # The container's cgroup disappears with it, so the last sample before the exit is the best we get.
        read, self.cpu_source = _docker_api.cpu_reader(self.api, self.plan.name)
        while True:
            seconds = read()
            if seconds is not None:  # an exited container reads 0 or nothing: max() keeps the last real one
                self.cpu = max(self.cpu, seconds)
            if exited.wait(CPU_SAMPLE_SECONDS):
                return


def _exit_status(code: int | None) -> tuple[int | None, int | None]:
    """docker's init reports a command killed by signal n as 128+n, like a shell does."""
    if code is None:
        return None, None
    if 128 < code <= 128 + 64:
        return None, code - 128
    return code, None


def _teardown(api, name: str, kill_first: bool) -> None:
    """Kill and remove ``name``; a ^C arriving meanwhile is held back until the container is gone."""
    interrupted = None
    for _ in range(3):
        try:
            if kill_first:
                _docker_api.kill(api, name)
            _docker_api.remove(api, name)
            break
        except KeyboardInterrupt as exc:
            interrupted = exc
    if interrupted is not None:
        raise interrupted
