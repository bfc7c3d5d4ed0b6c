"""Feeding stdin and draining stdout/stderr of a sandboxed process with a byte cap and a wall-clock deadline.

Output past the cap is read and dropped (never buffered), so a runaway writer cannot grow the harness's
memory and is not blocked either: it runs into the deadline like any other long run. A ``watch`` callback
polled a few times a second can stop the run early (e.g. the disk guard).
"""

from __future__ import annotations

import os
import selectors
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

# How often the watches run (the disk guard's filesystem reading, the CPU budget): on a tmpfs work dir a writer
# puts 400 MiB down in well under 0.2 s, past a 64 MiB limit between two looks; a look costs microseconds.
WATCH_INTERVAL = 0.02
# After the process exits, keep draining this long for output still in flight (a sandbox tears down its
# whole tree when its main process ends, so the pipes close right after).
DRAIN_AFTER_EXIT = 1.0


@dataclass(frozen=True)
class Captured:
    stdout: bytes
    stderr: bytes
    stdout_truncated: bool
    stderr_truncated: bool
    stop_reason: str  # "" (ran to the end), "timeout", or what ``watch`` returned


class _Sink:
    def __init__(self, cap: int) -> None:
        self.cap, self.chunks, self.size, self.truncated = cap, [], 0, False

    def take(self, data: bytes) -> None:
        room = self.cap - self.size
        if len(data) > room:
            self.truncated = True
            data = data[:max(room, 0)]
        if data:
            self.chunks.append(data)
            self.size += len(data)

    def value(self) -> bytes:
        return b"".join(self.chunks)


def pump(proc: subprocess.Popen, stdin: bytes, cap: int, deadline: float,
         watch: Callable[[], str] | None = None) -> Captured:
    """Run the I/O loop until the process has exited and its output pipes closed (or stayed open for
    ``DRAIN_AFTER_EXIT``), the deadline passes, or ``watch`` says stop. The process is not reaped here."""
    out_fd, err_fd = proc.stdout.fileno(), proc.stderr.fileno()
    sinks = {out_fd: _Sink(cap), err_fd: _Sink(cap)}
    selector = selectors.DefaultSelector()
    for fd in sinks:
        os.set_blocking(fd, False)
        selector.register(fd, selectors.EVENT_READ)
    exit_fd = _pidfd(proc.pid)  # readable once the process exits: no polling for its end
    if exit_fd is not None:
        selector.register(exit_fd, selectors.EVENT_READ)
    pending = memoryview(stdin)
    if proc.stdin is not None:
        if pending:
            os.set_blocking(proc.stdin.fileno(), False)
            selector.register(proc.stdin.fileno(), selectors.EVENT_WRITE)
        else:
            proc.stdin.close()
    reason, next_watch, exited_at = "", 0.0, None
    try:
        while True:
            now = time.monotonic()
            if now >= deadline:
                reason = "timeout"
                break
            if watch is not None and now >= next_watch:
                next_watch = now + WATCH_INTERVAL
                reason = watch()
                if reason:
                    break
            if exited_at is None and exit_fd is None and _exited(proc.pid):
                exited_at = now
            outputs_open = any(fd in selector.get_map() for fd in sinks)
            if exited_at is not None and (not outputs_open or now - exited_at > DRAIN_AFTER_EXIT):
                break
            timeout = min(WATCH_INTERVAL, deadline - now)
            if exit_fd is None and not outputs_open:
                timeout = min(timeout, 0.01)
            for key, _ in selector.select(timeout=max(0.0, timeout)):
                if key.fd in sinks:
                    _read_into(selector, key.fd, sinks[key.fd])
                elif key.fd == exit_fd:
                    exited_at = time.monotonic()
                    selector.unregister(exit_fd)
                else:
                    pending = _write_some(selector, proc, pending)
    finally:
        selector.close()
        if exit_fd is not None:
            os.close(exit_fd)
    return Captured(sinks[out_fd].value(), sinks[err_fd].value(), sinks[out_fd].truncated,
                    sinks[err_fd].truncated, reason)


def _pidfd(pid: int) -> int | None:
    try:
        return os.pidfd_open(pid)
    except (AttributeError, OSError):  # kernels before 5.3
        return None


def _exited(pid: int) -> bool:
    """Whether ``pid`` has exited, without reaping it (the caller reaps it with wait4 for its rusage)."""
    try:
        return os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:
        return True


def _read_into(selector, fd: int, sink: _Sink) -> None:
    try:
        data = os.read(fd, 1 << 16)
    except BlockingIOError:
        return
    if data:
        sink.take(data)
    else:
        selector.unregister(fd)


def _write_some(selector, proc: subprocess.Popen, pending: memoryview) -> memoryview:
    fd = proc.stdin.fileno()
    try:
        written = os.write(fd, pending[:1 << 16])
        pending = pending[written:]
    except BlockingIOError:
        return pending
    except (BrokenPipeError, OSError):
        pending = pending[:0]  # the reader went away; what it did not read is its business
    if not pending:
        selector.unregister(fd)
        proc.stdin.close()
    return pending


# How often the work dir itself is measured (a walk; the filesystem check is cheap). Often: while other jobs free
# space on the same tmpfs, the walk alone sees a writer that puts 400 MiB down in half a second; the ten-walks
# rule below keeps a big tree's walks rare.
WORKDIR_SCAN_SECONDS = 0.05
WORKDIR_SCAN_BUDGET = 0.25  # seconds one walk may take; a partial sum is still a lower bound


def disk_growth_watch(path: Path, limit_bytes: int,
                      filesystem_used: Callable[[], int] | None = None) -> Callable[[], str]:
    """A watch that stops the run once the filesystem holding ``path``, or the tree under ``path`` itself, has
    grown by more than the limit.

    Per-file size is capped by RLIMIT_FSIZE; this catches many files each under that cap. The filesystem's use
    is cheap to read but counts every process on it: another job deleting files at the same time hides the
    run's growth. So the work dir's own blocks are also summed, every WORKDIR_SCAN_SECONDS or ten walks' time,
    whichever is longer — a guard for the host, not a quota. ``filesystem_used`` replaces the statvfs reading
    (tests on a filesystem other jobs write to at the same time).
    """
    def statvfs_used() -> int:
        stats = os.statvfs(path)
        return (stats.f_blocks - stats.f_bfree) * stats.f_frsize

    used = filesystem_used or statvfs_used
    baseline, tree_baseline = used(), _tree_bytes(path)
    next_scan = [time.monotonic() + WORKDIR_SCAN_SECONDS]

    def watch() -> str:
        grown = used() - baseline
        if grown > limit_bytes:
            return f"disk limit: the work dir's filesystem grew by {grown} bytes"
        if time.monotonic() >= next_scan[0]:
            began = time.monotonic()
            grown = _tree_bytes(path) - tree_baseline
            # A big tree walks slowly: wait ten walks' time between walks, so the guard costs at most ~10 % of a core.
            next_scan[0] = time.monotonic() + max(WORKDIR_SCAN_SECONDS, 10 * (time.monotonic() - began))
            if grown > limit_bytes:
                return f"disk limit: the work dir grew by {grown} bytes"
        return ""

    return watch


# A run whose processes used less than this share of one CPU since it started is waiting (a sleep, a retry
# loop's back-off, a deadlock), not computing slowly: load cannot slow it, so the wall clock may stop it.
WAITING_SHARE = 0.1


def cpu_time_watch(cpu_seconds: Callable[[], float | None], budget: float, started: float) -> Callable[[], str]:
    """A watch that stops the run as a timeout once the CPU seconds its processes have used reach ``budget``,
    or once ``budget`` seconds of wall time have passed with the run mostly waiting (under ``WAITING_SHARE``
    of a CPU): what load slows is computing, and computing is what the CPU budget measures."""
    def watch() -> str:
        used = cpu_seconds()
        if used is None:
            return ""
        elapsed = time.monotonic() - started
        return "timeout" if used >= budget or (elapsed >= budget and used < WAITING_SHARE * elapsed) else ""

    return watch


def watch_all(*watches: Callable[[], str]) -> Callable[[], str]:
    """One watch that asks each in turn and stops for the first that says stop."""
    def watch() -> str:
        for one in watches:
            reason = one()
            if reason:
                return reason
        return ""

    return watch


def _tree_bytes(root: Path) -> int:
    """The blocks the files under ``root`` hold, as far as a walk gets within WORKDIR_SCAN_BUDGET."""
    deadline, total, todo = time.monotonic() + WORKDIR_SCAN_BUDGET, 0, [str(root)]
    while todo and time.monotonic() < deadline:
        try:
            with os.scandir(todo.pop()) as entries:
                for entry in entries:
                    stat = entry.stat(follow_symlinks=False)
                    total += stat.st_blocks * 512
                    if entry.is_dir(follow_symlinks=False):
                        todo.append(entry.path)
        except OSError:
            continue  # removed meanwhile, or not ours to read
    return total
