import os
from pathlib import Path

from bench.sandbox import _cgroups
from bench.sandbox._cgroups import Layout, RunCgroups, detect

HYBRID_MOUNTINFO = """\
31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu
33 31 0:30 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct
35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
39 31 0:36 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids
40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd
41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
"""
HYBRID_SELF = """\
9:name=systemd:/
8:pids:/
4:memory:/jobs/abc
2:cpuacct:/
1:cpu:/
0::/
"""


def test_hybrid_layout_puts_each_run_under_the_callers_own_groups():
    layout = detect(HYBRID_MOUNTINFO, HYBRID_SELF)
    assert layout.kind == "hybrid"
    assert layout.v1 == (("memory", Path("/sys/fs/cgroup/memory/jobs/abc")), ("pids", Path("/sys/fs/cgroup/pids")),
                         ("cpu", Path("/sys/fs/cgroup/cpu")), ("cpuacct", Path("/sys/fs/cgroup/cpuacct")))
    assert layout.v2 == Path("/sys/fs/cgroup/unified")


def test_pure_v2_layout():
    mountinfo = "29 23 0:26 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n"
    layout = detect(mountinfo, "0::/user.slice/user-0.slice/session-1.scope\n")
    assert layout == Layout((), Path("/sys/fs/cgroup/user.slice/user-0.slice/session-1.scope"))
    assert layout.kind == "v2"


def test_comounted_cpu_and_cpuacct_share_one_directory():
    mountinfo = ("32 31 0:29 / /sys/fs/cgroup/cpu,cpuacct rw - cgroup cgroup rw,cpu,cpuacct\n"
                 "35 31 0:32 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n")
    layout = detect(mountinfo, "3:cpu,cpuacct:/a\n2:memory:/a\n")
    assert dict(layout.v1) == {"cpu": Path("/sys/fs/cgroup/cpu,cpuacct/a"),
                               "cpuacct": Path("/sys/fs/cgroup/cpu,cpuacct/a"),
                               "memory": Path("/sys/fs/cgroup/memory/a")}
    assert layout.kind == "v1"


def test_no_cgroups_at_all():
    assert detect("", "").kind == "none"


def _fake_v1(tmp_path: Path) -> Layout:
    parents = {}
    for controller in ("memory", "pids", "cpu", "cpuacct"):
        parents[controller] = tmp_path / controller
        parents[controller].mkdir()
    return Layout(tuple(parents.items()), None)


def test_limits_are_written_to_the_run_groups(tmp_path):
    # A plain directory stands in for cgroupfs: mkdir works and limit files become plain files.
    layout = _fake_v1(tmp_path)
    group = RunCgroups(layout, memory_bytes=256 << 20, pids=40, cpus=0.5)
    group.create()
    base = {c: tmp_path / c / group.name for c in ("memory", "pids", "cpu", "cpuacct")}
    assert (base["memory"] / "memory.limit_in_bytes").read_text() == str(256 << 20)
    assert not (base["memory"] / "memory.memsw.limit_in_bytes").exists()  # only written where the kernel has it
    assert (base["pids"] / "pids.max").read_text() == "40"
    assert (base["cpu"] / "cpu.cfs_quota_us").read_text() == "50000"
    assert (base["cpu"] / "cpu.cfs_period_us").read_text() == "100000"
    assert group.enforced == ["cgroup-v1:memory", "cgroup-v1:pids", "cgroup-v1:cpu"]
    assert group.procs_files() == tuple(base[c] / "cgroup.procs" for c in ("memory", "pids", "cpu", "cpuacct"))


def test_unwritable_parent_becomes_a_note_not_an_error(tmp_path):
    layout = Layout((("memory", tmp_path / "missing-parent"),), None)
    group = RunCgroups(layout, memory_bytes=1, pids=1, cpus=1)
    group.create()
    assert not group.usable and group.enforced == []
    assert group.notes and "cgroup memory not writable" in group.notes[0]


def test_oom_and_cpu_are_read_from_v1_files(tmp_path):
    layout = _fake_v1(tmp_path)
    group = RunCgroups(layout, memory_bytes=1 << 20, pids=8, cpus=1)
    group.create()
    (group.dirs["memory"] / "memory.oom_control").write_text("oom_kill_disable 0\nunder_oom 0\noom_kill 2\n")
    (group.dirs["cpuacct"] / "cpuacct.usage").write_text("1500000000\n")
    assert group.oom_killed() is True
    assert group.cpu_seconds() == 1.5


def test_stale_groups_of_dead_harness_processes_are_swept(tmp_path):
    layout = _fake_v1(tmp_path)
    dead = tmp_path / "pids" / "lcb-999999999-3"
    mine = tmp_path / "pids" / f"lcb-{os.getpid()}-7"
    other = tmp_path / "pids" / "docker"
    for path in (dead, mine, other):
        path.mkdir()
    assert _cgroups.sweep_stale(layout) == (str(dead),)
    assert not dead.exists() and mine.exists() and other.exists()


class FakeCgroupFs(RunCgroups):
    """mkdir on a plain directory, filled the way cgroupfs fills a new v2 group."""

    def _mkdir(self, path):
        path.mkdir()
        offered = (path.parent / "cgroup.subtree_control").read_text().split()
        (path / "cgroup.controllers").write_text(" ".join(c.lstrip("+") for c in offered))
        for name in ("cgroup.kill", "cgroup.procs", "memory.swap.max", "memory.events", "cpu.stat"):
            (path / name).write_text("")


def _fake_v2(tmp_path, *, delegated: str, offered: str = "cpu memory pids"):
    parent = tmp_path / "v2"
    parent.mkdir()
    (parent / "cgroup.controllers").write_text(offered)
    (parent / "cgroup.subtree_control").write_text(delegated)
    return Layout((), parent)


def test_pure_v2_group_gets_memory_swap_pids_cpu_and_kill(tmp_path):
    group = FakeCgroupFs(_fake_v2(tmp_path, delegated="cpu memory pids"), memory_bytes=1 << 30, pids=99, cpus=1.5)
    group.create()
    path = group.dirs["v2"]
    assert [(path / f).read_text() for f in ("memory.max", "memory.swap.max", "pids.max", "cpu.max")] == \
        [str(1 << 30), "0", "99", "150000 100000"]
    assert group.enforced == ["cgroup-v2:kill", "cgroup-v2:memory", "cgroup-v2:pids", "cgroup-v2:cpu"]
    assert group.notes == []


def test_pure_v2_without_delegated_controllers_keeps_kill_and_says_what_is_missing(tmp_path):
    layout = _fake_v2(tmp_path, delegated="", offered="")  # e.g. a container whose parent group holds processes
    group = FakeCgroupFs(layout, memory_bytes=1 << 30, pids=99, cpus=1.0)
    group.create()
    assert group.enforced == ["cgroup-v2:kill"]
    assert group.notes == [f"cgroup v2 controller {c} not delegated to {layout.v2}: rlimit fallback"
                           for c in ("cpu", "memory", "pids")]


def test_v2_oom_and_cpu_are_read_from_events_and_stat(tmp_path):
    group = FakeCgroupFs(_fake_v2(tmp_path, delegated="memory"), memory_bytes=1 << 20, pids=8, cpus=1)
    group.create()
    (group.dirs["v2"] / "memory.events").write_text("low 0\nhigh 0\nmax 3\noom 1\noom_kill 1\n")
    (group.dirs["v2"] / "cpu.stat").write_text("usage_usec 2500000\nuser_usec 2000000\n")
    assert group.oom_killed() is True and group.cpu_seconds() == 2.5
