"""Per-run cgroups on cgroup v1, v2 and hybrid hosts: create, limit, join, kill, read usage, remove.

Each run gets its own group ``lcb-<pid>-<n>`` directly under the caller's own group in every hierarchy it
uses, so the caller's limits still bound it and nothing above the caller is touched. Hybrid hosts (all
controllers on v1, a controller-less v2 mount) get v1 memory (+memsw), pids, cpu and cpuacct plus a v2 group
used only for ``cgroup.kill``. Pure v2 hosts get memory.max, memory.swap.max, pids.max, cpu.max and
cgroup.kill in one group. Whatever cannot be created is reported, and the caller falls back to rlimits.
"""

from __future__ import annotations

import errno
import itertools
import os
import re
import signal
import time
from dataclasses import dataclass
from pathlib import Path

V1_CONTROLLERS = ("memory", "pids", "cpu", "cpuacct")
CPU_PERIOD_US = 100_000
_counter = itertools.count()
_RUN_NAME = re.compile(r"lcb-(\d+)-(\d+)")


@dataclass(frozen=True)
class Layout:
    """Where this process sits in each hierarchy: v1 controller → the caller's own group dir; v2 dir."""

    v1: tuple[tuple[str, Path], ...]
    v2: Path | None

    @property
    def kind(self) -> str:
        if self.v1 and self.v2:
            return "hybrid"
        return "v1" if self.v1 else ("v2" if self.v2 else "none")


def detect(mountinfo: str | None = None, self_cgroup: str | None = None) -> Layout:
    """Read /proc/self/mountinfo and /proc/self/cgroup (or the given texts, for tests)."""
    if mountinfo is None:
        mountinfo = Path("/proc/self/mountinfo").read_text()
    if self_cgroup is None:
        self_cgroup = Path("/proc/self/cgroup").read_text()
    v1_mounts, v2_mount = _mounts(mountinfo)
    v1, v2 = {}, None
    for line in self_cgroup.splitlines():
        _, controllers, path = line.split(":", 2)
        rel = path.lstrip("/")
        if not controllers and v2_mount is not None:
            v2 = v2_mount / rel
        for name in controllers.split(","):
            if name in V1_CONTROLLERS and name in v1_mounts:
                v1[name] = v1_mounts[name] / rel
    return Layout(tuple((c, v1[c]) for c in V1_CONTROLLERS if c in v1), v2)


def _mounts(mountinfo: str) -> tuple[dict[str, Path], Path | None]:
    v1, v2 = {}, None
    for line in mountinfo.splitlines():
        left, _, right = line.partition(" - ")
        fields, tail = left.split(), right.split()
        if len(fields) < 5 or len(tail) < 3:
            continue
        mount_point, fstype, options = Path(_unescape(fields[4])), tail[0], tail[2].split(",")
        if fstype == "cgroup2":
            v2 = mount_point
        elif fstype == "cgroup":
            for option in options:
                if option in V1_CONTROLLERS:
                    v1[option] = mount_point
    return v1, v2


def _unescape(text: str) -> str:
    return text.replace("\\040", " ").replace("\\011", "\t").replace("\\012", "\n").replace("\\134", "\\")


class RunCgroups:
    """The groups of one run. ``create`` never raises: it reports what is enforced and what is not."""

    def __init__(self, layout: Layout, *, memory_bytes: int, pids: int, cpus: float) -> None:
        self.layout = layout
        self.name = f"lcb-{os.getpid()}-{next(_counter)}"  # matches _RUN_NAME
        self.memory_bytes, self.pids, self.cpus = memory_bytes, pids, cpus
        self.dirs: dict[str, Path] = {}  # "memory" | "pids" | "cpu" | "cpuacct" | "v2" → created dir
        self.enforced: list[str] = []
        self.notes: list[str] = []
        self.v2_limits = False

    # --- setup ---

    def create(self) -> None:
        for controller, parent in self.layout.v1:
            self._try(controller, parent, getattr(self, f"_limit_v1_{controller}"))
        if self.layout.v2 is not None:
            self._try("v2", self.layout.v2, self._limit_v2)

    def _try(self, key: str, parent: Path, apply) -> None:
        path = parent / self.name
        if path not in self.dirs.values():  # co-mounted controllers (e.g. "cpu,cpuacct") share one group
            try:
                self._mkdir(path)
            except OSError as exc:
                self.notes.append(f"cgroup {key} not writable at {parent} ({exc.strerror}): rlimit fallback")
                return
        self.dirs[key] = path
        try:
            apply(path)
        except OSError as exc:
            self.notes.append(f"cgroup {key}: cannot set limits ({exc.strerror}); rlimit fallback")

    def _mkdir(self, path: Path) -> None:
        path.mkdir()  # on cgroupfs the kernel fills the new dir with its control files

    def _limit_v1_memory(self, path: Path) -> None:
        _write(path / "memory.limit_in_bytes", self.memory_bytes)
        self.enforced.append("cgroup-v1:memory")
        memsw = path / "memory.memsw.limit_in_bytes"
        if memsw.exists():  # only with swap accounting; without it there is no swap to escape to either
            _write(memsw, self.memory_bytes)
            self.enforced.append("cgroup-v1:memsw")

    def _limit_v1_pids(self, path: Path) -> None:
        _write(path / "pids.max", self.pids)
        self.enforced.append("cgroup-v1:pids")

    def _limit_v1_cpu(self, path: Path) -> None:
        if self.cpus > 0:
            _write(path / "cpu.cfs_period_us", CPU_PERIOD_US)
            _write(path / "cpu.cfs_quota_us", max(1000, int(self.cpus * CPU_PERIOD_US)))
            self.enforced.append("cgroup-v1:cpu")

    def _limit_v1_cpuacct(self, path: Path) -> None:
        pass  # accounting only

    def _limit_v2(self, path: Path) -> None:
        if (path / "cgroup.kill").exists():
            self.enforced.append("cgroup-v2:kill")
        wanted = {"memory", "pids", "cpu"} - {c for c, _ in self.layout.v1}
        available = set(_read(path / "cgroup.controllers").split()) if wanted else set()
        if wanted - available:
            self._enable_in_parent(wanted - available)
            available = set(_read(path / "cgroup.controllers").split())
        if "memory" in wanted and "memory" in available:
            _write(path / "memory.max", self.memory_bytes)
            if (path / "memory.swap.max").exists():
                _write(path / "memory.swap.max", 0)
            self.enforced.append("cgroup-v2:memory")
        if "pids" in wanted and "pids" in available:
            _write(path / "pids.max", self.pids)
            self.enforced.append("cgroup-v2:pids")
        if "cpu" in wanted and "cpu" in available and self.cpus > 0:
            _write_text(path / "cpu.max", f"{max(1000, int(self.cpus * CPU_PERIOD_US))} {CPU_PERIOD_US}")
            self.enforced.append("cgroup-v2:cpu")
        for missing in sorted(wanted - available):
            self.notes.append(f"cgroup v2 controller {missing} not delegated to {self.layout.v2}: "
                              "rlimit fallback")

    def _enable_in_parent(self, controllers: set[str]) -> None:
        parent = self.layout.v2
        offered = set(_read(parent / "cgroup.controllers").split())
        for name in sorted(controllers & offered):
            try:  # fails (EBUSY) when the parent holds processes and is not the root: no-internal-process rule
                _write_text(parent / "cgroup.subtree_control", f"+{name}")
            except OSError:
                pass

    # --- use ---

    @property
    def usable(self) -> bool:
        return bool(self.dirs)

    def procs_files(self) -> tuple[Path, ...]:
        return tuple(dict.fromkeys(path / "cgroup.procs" for path in self.dirs.values()))

    def kill(self) -> None:
        """Kill every process of the run: one write on v2, else SIGKILL in rounds until the group is empty."""
        v2 = self.dirs.get("v2")
        if v2 is not None and (v2 / "cgroup.kill").exists():
            try:
                _write(v2 / "cgroup.kill", 1)
            except OSError:
                pass
        pause = 0.001  # the kernel empties a killed group within a millisecond or two; scored runs wait on this
        for _ in range(100):
            pids = self.pids_left()
            if not pids:
                return
            _kill_all(pids)
            time.sleep(pause)
            pause = min(2 * pause, 0.01)

    def pids_left(self) -> tuple[int, ...]:
        found: set[int] = set()
        for procs in self.procs_files():
            try:
                found.update(int(p) for p in _read(procs).split())
            except OSError:
                pass
        return tuple(sorted(found))

    def oom_killed(self) -> bool:
        memory = self.dirs.get("memory")
        if memory is not None:
            return _field(memory / "memory.oom_control", "oom_kill") > 0
        v2 = self.dirs.get("v2")
        if v2 is not None and (v2 / "memory.events").exists():
            return _field(v2 / "memory.events", "oom_kill") > 0
        return False

    def cpu_seconds(self) -> float | None:
        cpuacct = self.dirs.get("cpuacct") or self.dirs.get("cpu")
        if cpuacct is not None and (cpuacct / "cpuacct.usage").exists():
            return int(_read(cpuacct / "cpuacct.usage")) / 1e9
        v2 = self.dirs.get("v2")
        if v2 is not None and (v2 / "cpu.stat").exists():
            return _field(v2 / "cpu.stat", "usage_usec") / 1e6
        return None

    def remove(self, wait_seconds: float = 5.0) -> tuple[str, ...]:
        """rmdir every group (killing stragglers first); returns the dirs that could not be removed."""
        deadline = time.monotonic() + wait_seconds
        left = []
        for key, path in list(self.dirs.items()):
            while True:
                try:
                    path.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError as exc:
                    if exc.errno != errno.EBUSY or time.monotonic() > deadline:
                        left.append(str(path))
                        break
                    self.kill()
                    time.sleep(0.02)
            self.dirs.pop(key, None)
        return tuple(left)


def sweep_stale(layout: Layout, wait_seconds: float = 2.0) -> tuple[str, ...]:
    """Remove run groups left by harness processes that died without tearing down (e.g. SIGKILL).

    Whatever still runs in such a group belongs to no harness any more: it is killed first. A SIGKILLed harness's
    sandbox dies with it (--die-with-parent), but its processes can still sit in the group for a moment while the
    kernel reaps them, so a busy group is retried until ``wait_seconds`` have passed.
    """
    removed = []
    deadline = time.monotonic() + wait_seconds
    for path in _stale_groups(layout):
        while True:
            try:
                path.rmdir()
                removed.append(str(path))
                break
            except FileNotFoundError:
                break
            except OSError as exc:
                if exc.errno != errno.EBUSY or time.monotonic() > deadline:
                    break  # it stays; the next run tries again
                _kill_members(path)
                time.sleep(0.02)
    return tuple(removed)


def _stale_groups(layout: Layout) -> list[Path]:
    parents = [path for _, path in layout.v1] + ([layout.v2] if layout.v2 else [])
    found = []
    for parent in dict.fromkeys(parents):
        try:
            names = os.listdir(parent)
        except OSError:
            continue
        for name in names:
            match = _RUN_NAME.fullmatch(name)
            if match is not None and not pid_alive(int(match.group(1))):
                found.append(parent / name)
    return found


def _kill_members(group: Path) -> None:
    try:
        _kill_all([int(p) for p in _read(group / "cgroup.procs").split()])
    except OSError:
        pass


def _kill_all(pids) -> None:
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def pid_alive(pid: int) -> bool:
    """Whether process ``pid`` exists (one of another user's counts: it cannot be signalled, but it is there)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _read(path: Path) -> str:
    with open(path) as handle:
        return handle.read()


def _write(path: Path, value: int) -> None:
    _write_text(path, str(value))


def _write_text(path: Path, text: str) -> None:
    with open(path, "w") as handle:
        handle.write(text)


def _field(path: Path, name: str) -> int:
    """A ``name value`` line of a flat-keyed cgroup file, 0 when absent."""
    try:
        for line in _read(path).splitlines():
            key, _, value = line.partition(" ")
            if key == name:
                return int(value)
    except (OSError, ValueError):
        pass
    return 0
