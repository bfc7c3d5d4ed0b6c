"""The bwrap sandbox backend (the default): bubblewrap namespaces + per-run cgroups + rlimits.

A run executes as an unprivileged host uid of its own (see ``_identity``) inside fresh user, mount, pid, net,
ipc, uts and cgroup namespaces: no network (only ``lo``), no capabilities, no nested user namespaces, the
image's /usr and /etc read-only, the work dir at /work the only writable host path, a private /tmp. Limits:
cgroups (memory without swap, pids, cpu) where writable, rlimits (fsize, nofile, nproc, core) always, a
wall-clock deadline and a disk-growth guard watched from here. On every way out — normal exit, timeout,
error, KeyboardInterrupt, the harness stopping (``shutdown``) — the whole process tree is killed, the cgroups
removed and the work dir handed back to its owner. Limits that could not be enforced as asked are listed in
``ExecResult.notes``.
"""

from __future__ import annotations

import functools
import os
import platform
import resource
import signal
import subprocess
import threading
import time
from dataclasses import replace
from pathlib import Path

from bench import profile
from bench.errors import SandboxError
from bench.sandbox import _bwrap_args, _cgroups, _frozen, _identity, _requests, shutdown
from bench.sandbox._capture import cpu_time_watch, disk_growth_watch, pump, watch_all
from bench.sandbox._channels import OpenChannels
from bench.sandbox.host_tools import ensure_tool
from bench.sandbox.protocol import ExecRequest, ExecResult, Limits
from bench.sandbox.registry import register

# Processes of the chain that count against pids.max besides the command: the stage bwrap's monitor and its
# pid 1, the sandbox bwrap's monitor and its pid 1. nproc counts processes of the run's uid: the last two.
PIDS_OVERHEAD = 4
NPROC_OVERHEAD = 2
CHAIN_ENV = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin"}  # all the host env the chain ever sees
# Once the first process is reaped the pid namespace is gone and the channels' pipes close; a pipe still open
# after CHANNEL_CLOSE_SECONDS has its holders killed, and what arrived within CHANNEL_DRAIN_SECONDS more is kept.
CHANNEL_CLOSE_SECONDS = 0.5
CHANNEL_DRAIN_SECONDS = 5.0

_layout: _cgroups.Layout | None = None
_active: set[str] = set()
_active_lock = threading.Lock()


def cgroup_layout() -> _cgroups.Layout:
    global _layout
    if _layout is None:
        _layout = _cgroups.detect()
    return _layout


@register("bwrap")
class BwrapSandbox:
    name = "bwrap"

    def run(self, request: ExecRequest) -> ExecResult:
        request = _requests.route_network(request)
        _requests.validate(request)
        bwrap = ensure_tool("bwrap", "bubblewrap", SandboxError)
        attempt = 1
        while True:
            try:
                with _identity.run_identity() as identity:
                    result = _Run(request, identity, bwrap).execute()
                profile.sandbox_run(result.wall_seconds)
                return result
            except TransientSetupError:
                if attempt >= SETUP_ATTEMPTS:
                    raise
                time.sleep(0.1 * attempt)
                attempt += 1

    def leftovers(self) -> tuple[str, ...]:
        """cgroups this process created that are not part of a run in progress (should be none)."""
        layout = cgroup_layout()
        parents = {path for _, path in layout.v1} | ({layout.v2} if layout.v2 else set())
        prefix = f"lcb-{os.getpid()}-"
        with _active_lock:
            active = set(_active)
        found = []
        for parent in sorted(parents):
            try:
                names = sorted(os.listdir(parent))
            except OSError:
                continue
            found += [str(parent / n) for n in names if n.startswith(prefix) and n not in active]
        return tuple(found)


class _Run:
    def __init__(self, request: ExecRequest, identity: _identity.Identity, bwrap: str) -> None:
        # Where frozen paths cannot be made immutable, the request carries read-only binds of them instead.
        self.request, self.freeze = _frozen.plan(request)
        self.identity, self.bwrap = identity, bwrap
        limits = request.limits
        self.cgroups = _cgroups.RunCgroups(cgroup_layout(), memory_bytes=limits.memory_bytes,
                                           pids=limits.pids + PIDS_OVERHEAD, cpus=limits.cpus)
        self.notes: list[str] = []
        self.enforced: list[str] = []
        self.proc: subprocess.Popen | None = None
        self.owners: tuple[_identity.Owner, ...] = ()
        self.frozen = _frozen.Frozen()

    def execute(self) -> ExecResult:
        shutdown.check()
        _cgroups.sweep_stale(self.cgroups.layout)
        with _active_lock:
            _active.add(self.cgroups.name)
        token = shutdown.register(self._kill_tree)  # SIGTERM of the harness kills the tree from any thread
        try:
            try:
                result = self._execute()
            finally:
                shutdown.unregister(token)
            shutdown.check()  # killed because the harness is stopping: not a result
        except BaseException:
            self._teardown(raise_leftovers=False)  # the error in flight (e.g. KeyboardInterrupt) is the news
            raise
        self._teardown(raise_leftovers=True)
        return result

    def _execute(self) -> ExecResult:
        request = self.request
        status_read, status_write = os.pipe()
        owner = (self.identity.uid, self.identity.gid) if self.identity.drop_privileges else None
        channels = OpenChannels(request.channels, owner)
        received = ()
        try:
            self.cgroups.create()
            writable = tuple(Path(os.path.realpath(p)) for p in
                             (request.workdir, *(m.host_path for m in request.mounts if m.writable)))
            self.owners = _identity.hand_over(writable, self.identity)
            if self.freeze:  # after the hand-over: an immutable file's owner cannot change either
                self.frozen = _frozen.freeze_all(Path(request.workdir), request.frozen)
            argv = self._chain(status_write, tuple(channels.env))
            # The guard's baseline is read before the start, so a writer's first burst counts as growth.
            disk_grew = disk_growth_watch(Path(request.workdir), request.limits.disk_bytes)
            started = time.monotonic()
            self.proc = subprocess.Popen(
                argv, stdin=subprocess.PIPE if request.stdin else subprocess.DEVNULL, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, env=CHAIN_ENV, cwd="/", start_new_session=True,
                pass_fds=(status_write, *channels.child_fds))
            os.close(status_write)
            status_write = -1
            channels.started()
            watch, seconds = self._time_bound(disk_grew, started)
            captured = pump(self.proc, request.stdin, request.limits.output_bytes, started + seconds, watch)
            if captured.stop_reason:
                self._kill_tree()
            wait_status, usage = _reap(self.proc)
            wall = time.monotonic() - started
            if request.channels:  # the pipes end with the sandbox's last process; never wait long for that
                if not channels.wait(CHANNEL_CLOSE_SECONDS):
                    self._kill_tree()
                received = channels.collect(CHANNEL_DRAIN_SECONDS)
            oom, cpu = self.cgroups.oom_killed(), self.cgroups.cpu_seconds()
            _raise_if_setup_failed(_read_all(status_read), captured.stderr, wait_status,
                                   stopped=bool(captured.stop_reason) or oom)
        finally:
            channels.close()
            if status_write >= 0:
                os.close(status_write)
            os.close(status_read)
        if captured.stop_reason not in ("", "timeout"):
            self.notes.append(captured.stop_reason)
        if cpu is None:
            cpu = usage.ru_utime + usage.ru_stime
            self.notes.append("cpu time from rusage (no cgroup accounting)")
        result = _result(wait_status, captured, wall, cpu, oom, tuple(self.enforced), tuple(self.notes))
        return replace(result, received=received) if request.channels else result

    def _time_bound(self, watch, started: float):
        """(watch, wall seconds): the time limit as a CPU budget where the cgroup counts CPU time (a run is then
        stopped alike on a quiet machine and under load); a run that mostly waits is stopped at the limit on the
        wall clock, and any run at ``wall_slack`` times it; the wall clock alone where nothing counts."""
        limits = self.request.limits
        if self.cgroups.cpu_seconds() is None:
            self.notes.append("time limit on the wall clock (no cgroup counts CPU time)")
            return watch, limits.wall_seconds
        self.enforced.append("cgroup:cpu-time-limit")
        return watch_all(cpu_time_watch(self.cgroups.cpu_seconds, limits.wall_seconds, started), watch), \
            limits.wall_seconds * limits.wall_slack

    # --- the command line ---

    def _chain(self, status_fd: int, channel_env: tuple[tuple[str, str], ...] = ()) -> tuple[str, ...]:
        request, identity = self.request, self.identity
        binds = _binds(request)
        prefix: tuple[str, ...] = ()
        if identity.drop_privileges:
            stage_args, binds = _bwrap_args.stage(binds)
            Path(_bwrap_args.STAGE_ROOT).mkdir(parents=True, exist_ok=True)
            prefix = (self.bwrap, *stage_args, *_bwrap_args.setpriv(identity.uid, identity.gid))
        root = Path(request.image_root)
        sandbox_args = _bwrap_args.sandbox(
            binds=binds,
            symlinks=_bwrap_args.usr_symlinks((root / "usr/lib64").is_dir(), (root / "usr/lib32").is_dir()),
            env=(*request.env, *channel_env), cwd=request.cwd, tmp_bytes=request.limits.tmp_bytes,
            inner_uid=_identity.SANDBOX_UID if identity.drop_privileges else None, status_fd=status_fd)
        self.enforced += ["bwrap:namespaces", "bwrap:no-network", "bwrap:cap-drop-all", "bwrap:no-userns",
                          "bwrap:tmpfs-size"]
        self._report_cgroups()
        rlimits = self._rlimits()
        join = _bwrap_args.join_cgroups(tuple(str(p) for p in self.cgroups.procs_files()))
        layout = _fixed_layout() if request.fixed_addresses else ()
        if request.fixed_addresses and not layout:
            self.notes.append("addresses randomised: setarch --addr-no-randomize is refused here")
        return (*join, *_bwrap_args.prlimit(rlimits), *layout, *prefix, self.bwrap, *sandbox_args, *request.argv)

    def _report_cgroups(self) -> None:
        self.enforced += self.cgroups.enforced
        self.notes += self.cgroups.notes
        if not self.identity.drop_privileges:
            self.notes.append("not root: the sandbox runs as the caller's uid")

    def _rlimits(self) -> tuple[tuple[str, int], ...]:
        limits: Limits = self.request.limits
        wanted = [("fsize", limits.file_size_bytes), ("nofile", limits.nofile),
                  ("nproc", limits.pids + NPROC_OVERHEAD), ("core", 0)]
        if not any(e.endswith(":memory") for e in self.cgroups.enforced):
            # Address-space cap: cruder than a memory cgroup (counts mappings, not use; no OOM kill to see).
            wanted.append(("as", limits.memory_bytes))
            self.notes.append("memory limited by RLIMIT_AS (no memory cgroup); oom_killed cannot be detected")
        if not any(e.endswith(":cpu") for e in self.cgroups.enforced):
            self.notes.append("cpu quota not enforced (no cpu cgroup)")
        out = []
        for name, value in wanted:
            hard = resource.getrlimit(getattr(resource, f"RLIMIT_{name.upper()}"))[1]
            if hard != resource.RLIM_INFINITY and value > hard:
                self.notes.append(f"{name} limit {value} lowered to the host's hard limit {hard}")
                value = hard
            out.append((name, value))
            self.enforced.append(f"prlimit:{name}")
        return tuple(out)

    # --- teardown ---

    def _kill_tree(self) -> None:
        if self.cgroups.usable:
            self.cgroups.kill()
        if self.proc is not None and self.proc.returncode is None:
            try:  # the stage bwrap's group; everything below dies with it (--die-with-parent, pid namespace)
                os.killpg(self.proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass

    def _teardown(self, *, raise_leftovers: bool) -> None:
        """Kill everything, reap, remove the cgroups, hand the work dir back; runs on every way out."""
        try:
            self._kill_tree()
            if self.proc is not None:
                if self.proc.returncode is None:
                    _reap(self.proc)
                for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
                    if stream is not None:
                        stream.close()
            left = self.cgroups.remove()
            if left and raise_leftovers:
                raise SandboxError(f"could not remove cgroups {', '.join(left)}")
        finally:
            self.frozen.thaw()
            _identity.hand_back(self.owners)
            with _active_lock:
                _active.discard(self.cgroups.name)


@functools.lru_cache(maxsize=None)
def _fixed_layout() -> tuple[str, ...]:
    """The prefix that keeps a run's address layout fixed, or () where the personality is refused (a seccomp
    filter that allows only some personalities, as docker's default one does): tried once per process."""
    prefix = _bwrap_args.fixed_addresses(platform.machine())
    try:
        done = subprocess.run((*prefix, "true"), capture_output=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return ()
    return prefix if done.returncode == 0 else ()


def _binds(request: ExecRequest) -> tuple[_bwrap_args.Bind, ...]:
    root = Path(request.image_root)
    binds = [_bwrap_args.Bind(str(root / "usr"), "/usr"), _bwrap_args.Bind(str(root / "etc"), "/etc"),
             _bwrap_args.Bind(os.path.realpath(request.workdir), "/work", writable=True)]
    binds += [_bwrap_args.Bind(os.path.realpath(m.host_path), m.sandbox_path, m.writable) for m in request.mounts]
    return tuple(binds)


# --- process results ----------------------------------------------------------------------------------------


def _reap(proc: subprocess.Popen):
    """Wait for the chain's first process, with its resource usage (it includes every reaped descendant)."""
    while True:
        try:
            _, status, usage = os.wait4(proc.pid, 0)
            break
        except InterruptedError:
            continue
        except ChildProcessError:  # someone else reaped it: its status is lost, which must not read as success
            raise SandboxError(f"the sandbox process {proc.pid} was reaped elsewhere; its exit status is lost")
    proc.returncode = os.waitstatus_to_exitcode(status)
    return status, usage


def _read_all(fd: int) -> bytes:
    os.set_blocking(fd, False)
    chunks = []
    while True:
        try:
            chunk = os.read(fd, 1 << 16)
        except BlockingIOError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks)


# bwrap binds the host's mount tree recursively, then remounts every mount in it; a host mount that goes away
# in between (a container's overlay being torn down by a dockerd) fails that remount. The command never ran,
# so the run is set up again, a few times.
SETUP_ATTEMPTS = 3
_TRANSIENT_SETUP = ("Unable to apply mount flags", "Can't bind mount /oldroot/")


class TransientSetupError(SandboxError):
    """bwrap could not set up the sandbox because the host's mounts changed under it."""


def _raise_if_setup_failed(status_json: bytes, stderr: bytes, wait_status: int, *, stopped: bool) -> None:
    """bwrap writes an ``exit-code`` status once the command has run; without it, bwrap itself failed."""
    code = os.waitstatus_to_exitcode(wait_status)
    if b'"exit-code"' in status_json or stopped or code < 0:  # killed on purpose or from outside: no verdict
        return
    message = stderr.decode("utf-8", "replace").strip()[-800:] or f"exit status {code}"
    error = TransientSetupError if any(marker in message for marker in _TRANSIENT_SETUP) else SandboxError
    raise error(f"bwrap could not set up the sandbox: {message}")


def _result(wait_status: int, captured, wall: float, cpu: float, oom: bool, enforced, notes) -> ExecResult:
    code = os.waitstatus_to_exitcode(wait_status)
    signal_number = None
    if code < 0:
        signal_number, code = -code, None
    elif 128 < code < 128 + 65:
        # bwrap reports a command killed by signal N as exit status 128 + N (as shells do).
        signal_number, code = code - 128, None
    return ExecResult(
        exit_code=code, signal=signal_number, timed_out=captured.stop_reason == "timeout", oom_killed=oom,
        stdout=captured.stdout, stderr=captured.stderr, stdout_truncated=captured.stdout_truncated,
        stderr_truncated=captured.stderr_truncated, wall_seconds=wall, cpu_seconds=cpu,
        enforcement=tuple(dict.fromkeys(enforced)), notes=tuple(dict.fromkeys(notes)))
