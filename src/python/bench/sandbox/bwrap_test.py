"""The bwrap backend against the shared conformance + attack suite, plus what only bwrap has to get right."""

import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest

from bench.errors import SandboxError
from bench.environment.image import suite_image
from bench.sandbox import _cgroups, conformance
from bench.sandbox.bwrap import BwrapSandbox, cgroup_layout
from bench.sandbox.protocol import ExecRequest, Limits, Mount, NetworkPolicy
from bench.testing.support import child_env

CASES = conformance.all_cases()


@pytest.fixture(scope="module")
def image():
    return suite_image()


@pytest.fixture(scope="module")
def scratch(tmp_path_factory):
    folder = tmp_path_factory.mktemp("bwrap-suite")
    os.chmod(folder, 0o755)
    return folder


@pytest.mark.parametrize("one", CASES, ids=[c.case_name for c in CASES])
def test_suite_case(one, image, scratch):
    result = conformance.run_case("bwrap", one, BwrapSandbox(), image[0], image[1], scratch)
    assert result.passed, result.detail


def test_bwrap_has_no_known_failures_and_the_suite_has_enough_attacks():
    assert conformance.KNOWN_FAILURES["bwrap"] == set()
    kinds = [c.case_kind for c in CASES]
    assert kinds.count("attack") >= 14 and kinds.count("conformance") >= 13
    assert len({c.case_name for c in CASES}) == len(CASES)


def _request(image, workdir: Path, argv, **fields) -> ExecRequest:
    fields.setdefault("env", (("PATH", "/usr/bin:/bin"),))
    return ExecRequest(argv=tuple(argv), workdir=workdir, image_root=image[0], image_digest=image[1], **fields)


def test_limits_and_cgroups_are_reported_in_enforcement(image, tmp_path):
    result = BwrapSandbox().run(_request(image, tmp_path, ("true",)))
    assert result.ok
    for tag in ("bwrap:no-network", "prlimit:fsize", "prlimit:nofile", "prlimit:nproc", "cgroup-v1:memory",
                "cgroup-v1:pids", "cgroup-v1:cpu", "cgroup-v2:kill"):
        assert tag in result.enforcement, result.enforcement
    assert result.notes == ()


def test_a_run_that_asks_gets_the_same_address_layout_every_time(image, tmp_path):
    # A class's hash is its address: with the layout randomised it differed in every run, and so did every value
    # built from such hashes (soupsieve's cached _hash), which made probe sets differ from build to build.
    code = "class A: pass\nprint(open('/proc/self/personality').read().strip(), hash(A), id(object()))"
    env = (("PATH", "/usr/bin:/bin"), ("PYTHONHASHSEED", "0"))
    runs = [BwrapSandbox().run(_request(image, tmp_path, ("python3", "-c", code), env=env, fixed_addresses=True))
            for _ in range(3)]
    assert all(r.ok for r in runs), [r.stderr for r in runs]
    assert runs[0].stdout.split()[0] == b"00040000"  # ADDR_NO_RANDOMIZE
    assert runs[0].stdout == runs[1].stdout == runs[2].stdout
    # Not asked for, the layout stays random: a run that judges a candidate masks what hangs on addresses.
    plain = BwrapSandbox().run(_request(image, tmp_path, ("python3", "-c", code), env=env))
    assert plain.ok and plain.stdout.split()[0] == b"00000000"


def test_where_the_personality_is_refused_runs_go_on_with_random_addresses_and_say_so(image, tmp_path,
                                                                                       monkeypatch):
    from bench.sandbox import bwrap as module

    monkeypatch.setattr(module._bwrap_args, "fixed_addresses", lambda machine: ("false", "--"))  # refused
    module._fixed_layout.cache_clear()
    try:
        result = BwrapSandbox().run(_request(image, tmp_path, ("cat", "/proc/self/personality"), fixed_addresses=True))
    finally:
        monkeypatch.undo()
        module._fixed_layout.cache_clear()
    assert result.ok and result.stdout == b"00000000\n"
    assert "addresses randomised: setarch --addr-no-randomize is refused here" in result.notes


def test_workdir_goes_back_to_its_owner_after_the_run(image, tmp_path):
    os.chown(tmp_path, 4321, 4321)
    result = BwrapSandbox().run(_request(image, tmp_path, ("sh", "-c", "mkdir d && echo x > d/f && id -u")))
    assert result.stdout == b"64123\n"
    owners = {(p.stat().st_uid, p.stat().st_gid) for p in (tmp_path, tmp_path / "d", tmp_path / "d" / "f")}
    assert owners == {(4321, 4321)}


def test_setup_failure_is_a_sandbox_error_not_an_exit_code(image, tmp_path):
    with pytest.raises(SandboxError, match="could not set up the sandbox: .*chdir"):
        BwrapSandbox().run(_request(image, tmp_path, ("true",), cwd="/does/not/exist"))


def test_missing_program_is_exit_127(image, tmp_path):
    result = BwrapSandbox().run(_request(image, tmp_path, ("no-such-program",)))
    assert result.exit_code == 127 and b"no-such-program" in result.stderr


@pytest.mark.parametrize("fields, message", [
    ({"mounts": (Mount(Path("/etc"), "/usr/local"),)}, "would shadow"),
    ({"mounts": (Mount(Path("/etc"), "relative"),)}, "absolute normalised"),
    ({"mounts": (Mount(Path("/nonexistent-src"), "/opt/x"),)}, "does not exist"),
    ({"env": (("A=B", "c"),)}, "invalid environment entry"),
    ({"limits": Limits(pids=0)}, "Limits.pids must be positive"),
    ({"network": NetworkPolicy.INDEX_PROXY}, "needs ExecRequest.proxy_socket"),
])
def test_bad_requests_are_refused_before_anything_runs(image, tmp_path, fields, message):
    with pytest.raises(SandboxError, match=message):
        BwrapSandbox().run(_request(image, tmp_path, ("true",), **fields))


def test_program_name_with_equals_sign_is_refused(image, tmp_path):
    with pytest.raises(SandboxError, match="must not contain '='"):
        BwrapSandbox().run(_request(image, tmp_path, ("A=B",)))


def test_index_proxy_is_the_only_way_out(image, tmp_path):
    from bench.sandbox.index_proxy import IndexProxy

    code = ("import urllib.request\ntry:\n    urllib.request.urlopen('https://example.com/', timeout=20)\n"
            "except OSError as e:\n    print('refused:', e)")
    with IndexProxy() as proxy:
        result = BwrapSandbox().run(_request(image, tmp_path, ("python3", "-c", code),
                                             network=NetworkPolicy.INDEX_PROXY, proxy_socket=proxy.socket_path))
        decisions = proxy.decisions
    assert b"refused: <urlopen error Tunnel connection failed: 403" in result.stdout, result.stderr
    assert [(d.method, d.target, d.status) for d in decisions] == [("CONNECT", "example.com:443", 403)]


def test_keyboard_interrupt_tears_down_the_whole_run(image, tmp_path):
    marker = conformance.token()
    workdir = tmp_path / "work"
    workdir.mkdir()
    script = textwrap.dedent(f"""
        import os, signal, threading, time
        from pathlib import Path
        from bench.sandbox.bwrap import BwrapSandbox
        from bench.sandbox.protocol import ExecRequest
        code = "import os, time\\nif os.fork() == 0:\\n    os.setsid()\\ntime.sleep(300)"
        sandbox = BwrapSandbox()
        threading.Timer(2.0, os.kill, (os.getpid(), signal.SIGINT)).start()
        try:
            sandbox.run(ExecRequest(argv=("python3", "-c", code, {marker!r}), workdir=Path({str(workdir)!r}),
                                    image_root=Path({str(image[0])!r})))
            print("returned")
        except KeyboardInterrupt:
            print("interrupted", sandbox.leftovers())
    """)
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=child_env(),
                          timeout=120)
    assert done.stdout.strip() == "interrupted ()", done.stderr
    assert time.monotonic() - started < 60
    assert conformance.host_pids_with(marker) == ()
    assert (workdir.stat().st_uid, workdir.stat().st_gid) == (0, 0)


def test_concurrent_runs_get_distinct_host_uids(image, tmp_path):
    import threading

    markers = [conformance.token() for _ in range(3)]
    results = []

    def one(index: int) -> None:
        workdir = tmp_path / f"w{index}"
        workdir.mkdir()
        argv = ("sh", "-c", "id -u; sleep 3", markers[index])
        results.append(BwrapSandbox().run(_request(image, workdir, argv)))

    threads = [threading.Thread(target=one, args=(i,)) for i in range(3)]
    for thread in threads:
        thread.start()
    host_uids: dict[str, int] = {}
    deadline = time.monotonic() + 60
    while len(host_uids) < 3 and time.monotonic() < deadline:
        for marker in markers:
            for pid in conformance.host_pids_with(marker):
                status = Path(f"/proc/{pid}/status").read_text() if Path(f"/proc/{pid}/status").exists() else ""
                uid_line = [line for line in status.splitlines() if line.startswith("Uid:")]
                if uid_line and int(uid_line[0].split()[1]) != 0:  # skip the root stage process
                    host_uids[marker] = int(uid_line[0].split()[1])
        time.sleep(0.05)
    for thread in threads:
        thread.join()
    assert [r.stdout for r in results] == [b"64123\n"] * 3  # the same uid inside ...
    assert len(set(host_uids.values())) == 3 and min(host_uids.values()) >= 64200  # ... distinct on the host


def test_sigkill_of_the_harness_leaves_no_sandbox_processes(image, tmp_path):
    # GNU sleep sums its operands: a unique fraction of a second marks the sandboxed process.
    marker = f"0.{secrets.randbelow(10**15):015d}1"
    workdir = tmp_path / "work"
    workdir.mkdir()
    script = textwrap.dedent(f"""
        from pathlib import Path
        from bench.sandbox.bwrap import BwrapSandbox
        from bench.sandbox.protocol import ExecRequest
        BwrapSandbox().run(ExecRequest(argv=("sleep", "300", {marker!r}), workdir=Path({str(workdir)!r}),
                                       image_root=Path({str(image[0])!r})))
    """)
    log = tmp_path / "harness.log"
    with log.open("wb") as sink:
        harness = subprocess.Popen([sys.executable, "-c", script], env=child_env(), stdout=sink, stderr=sink)
    # The harness's own command line carries the marker too: only other processes show the sandbox is up.
    def sandboxed() -> tuple[int, ...]:
        return tuple(pid for pid in conformance.host_pids_with(marker) if pid != harness.pid)

    deadline = time.monotonic() + 120
    while not sandboxed() and harness.poll() is None and time.monotonic() < deadline:
        time.sleep(0.1)
    assert harness.poll() is None, f"the harness exited early ({harness.returncode}): {log.read_text()[-2000:]}"
    assert sandboxed(), "the sandboxed sleep never started"
    harness.send_signal(signal.SIGKILL)
    harness.wait()
    # --die-with-parent down the chain: the sandbox dies with the harness even without any teardown code.
    deadline = time.monotonic() + 30
    while conformance.host_pids_with(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert conformance.host_pids_with(marker) == ()
    # Its cgroups outlived it (nobody was left to remove them); the next run anywhere sweeps them away.
    BwrapSandbox().run(_request(image, tmp_path, ("true",)))
    layout = cgroup_layout()
    parents = [path for _, path in layout.v1] + ([layout.v2] if layout.v2 else [])
    assert [p for parent in parents for p in parent.glob(f"lcb-{harness.pid}-*")] == []


def test_sweep_kills_what_still_runs_in_a_dead_harness_group_and_removes_it():
    # A straggler outlived its harness inside the harness's run group: rmdir alone fails (EBUSY) while it runs.
    # The dead harness's pid is one no process can have (past pid_max): a pid of a process that just exited
    # can be taken again by the time the sweep looks, on a busy machine.
    dead_pid = int(Path("/proc/sys/kernel/pid_max").read_text()) + 7
    layout = cgroup_layout()
    parents = [path for _, path in layout.v1] + ([layout.v2] if layout.v2 else [])
    assert os.geteuid() == 0 and parents, "the harness runs as root with cgroups on this machine kind"
    group = parents[0] / f"lcb-{dead_pid}-0"
    group.mkdir()
    straggler = subprocess.Popen(["sleep", "300"])
    try:
        (group / "cgroup.procs").write_text(str(straggler.pid))
        removed = _cgroups.sweep_stale(layout, wait_seconds=20)
        # Every sandboxed run sweeps too: a run of another test process on this machine may come first.
        assert str(group) in removed or not group.exists()
        assert straggler.wait(timeout=20) == -signal.SIGKILL
        assert not group.exists()
    finally:
        straggler.kill()
        straggler.wait()
        if group.exists():
            group.rmdir()


def test_unprivileged_caller_falls_back_to_rlimits_and_says_so(image):
    """Without root: no uid switch, no cgroups; the run still works, limited by rlimits, and notes say so."""
    # pytest's tmp_path sits in a 0700 folder; the unprivileged caller needs a path it can walk.
    folder = Path(tempfile.mkdtemp(prefix="lcb-unprivileged-"))
    os.chmod(folder, 0o755)
    try:
        lines = _run_as_unprivileged_caller(image[0], folder) + ["", ""]
    finally:
        shutil.rmtree(folder)
    assert lines[0] == "64999 1 True", lines
    assert "not root: the sandbox runs as the caller's uid" in lines[1]
    assert "memory limited by RLIMIT_AS (no memory cgroup); oom_killed cannot be detected" in lines[1]


def _run_as_unprivileged_caller(image_root: Path, folder: Path) -> list[str]:
    import bench

    package, view, work = folder / "pkg", folder / "rootfs", folder / "work"
    shutil.copytree(Path(bench.__file__).parent, package / "bench",
                    ignore=shutil.ignore_patterns("__pycache__", "*_test.py"))
    for path in (*package.rglob("*"), package):
        os.chmod(path, 0o755 if path.is_dir() else 0o644)
    view.mkdir()
    work.mkdir()
    os.chown(work, 64999, 64999)
    code = textwrap.dedent(f"""
        from pathlib import Path
        from bench.sandbox.bwrap import BwrapSandbox
        from bench.sandbox.protocol import ExecRequest, Limits
        r = BwrapSandbox().run(ExecRequest(
            argv=("python3", "-c", "import os; print(os.getuid()); bytearray(900 << 20)"),
            workdir=Path({str(work)!r}), image_root=Path({str(view)!r}), env=(("PATH", "/usr/bin:/bin"),),
            limits=Limits(memory_bytes=512 << 20)))
        print(r.stdout.decode().strip(), r.exit_code, "MemoryError" in r.stderr.decode())
        print("|".join(r.notes))
    """)
    # The cached rootfs sits under root's home: show it to the unprivileged caller through a private bind.
    script = 'mount --bind "$1" "$2" && shift 2 && exec setpriv --reuid=64999 --regid=64999 --clear-groups "$@"'
    done = subprocess.run(
        ["unshare", "--mount", "--propagation", "private", "sh", "-c", script, "sh", str(image_root), str(view),
         "/usr/bin/python3", "-c", code],
        capture_output=True, text=True, timeout=120, cwd="/",
        env={"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "PYTHONPATH": str(package), "BENCH_CACHE_DIR": str(folder)})
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_a_setup_failure_from_host_mounts_changing_is_set_up_again(monkeypatch, image, tmp_path):
    # Seen under load: a dockerd tore down a container's overlay while bwrap was remounting the host's tree.
    from bench.sandbox import bwrap

    vanished = (b"bwrap: Can't bind mount /oldroot/ on /newroot/: Unable to apply mount flags: remount "
                b'"/newroot/tmp/lcb-dockerd-x/data/overlay2/abc/merged": Invalid argument')
    with pytest.raises(bwrap.TransientSetupError):
        bwrap._raise_if_setup_failed(b"", vanished, 1 << 8, stopped=False)
    with pytest.raises(SandboxError) as plain:
        bwrap._raise_if_setup_failed(b"", b"bwrap: Can't chdir to /does/not/exist", 1 << 8, stopped=False)
    assert not isinstance(plain.value, bwrap.TransientSetupError)

    real_execute, calls = bwrap._Run.execute, []

    def flaky_execute(run):
        calls.append(run)
        if len(calls) < bwrap.SETUP_ATTEMPTS:
            raise bwrap.TransientSetupError("bwrap could not set up the sandbox: " + vanished.decode())
        return real_execute(run)

    monkeypatch.setattr(bwrap._Run, "execute", flaky_execute)
    result = BwrapSandbox().run(_request(image, tmp_path, ("sh", "-c", "echo ran >> log; cat log")))
    assert (len(calls), result.exit_code, result.stdout) == (bwrap.SETUP_ATTEMPTS, 0, b"ran\n")  # ran once
    calls.clear()
    monkeypatch.setattr(bwrap, "SETUP_ATTEMPTS", 2)
    monkeypatch.setattr(bwrap._Run, "execute", _always_vanishing(calls))
    with pytest.raises(bwrap.TransientSetupError):
        BwrapSandbox().run(_request(image, tmp_path, ("true",)))
    assert len(calls) == 2  # then the error stands


def _always_vanishing(calls):
    from bench.sandbox.bwrap import TransientSetupError

    def execute(run):
        calls.append(run)
        raise TransientSetupError("bwrap could not set up the sandbox: Unable to apply mount flags")
    return execute


CHANNEL_REWRITE = r"""
import os, time
path = os.environ["BENCH_CHANNEL_REPORT"]
with open(path, "wb") as handle:
    handle.write(b"<first/>")
# What already left cannot be taken back: truncating, replacing or linking the name reaches nothing.
for attempt in (lambda: open(path, "wb").write(b"<forged/>"),
                lambda: os.replace("/tmp/x", path),
                lambda: os.link(path, "/tmp/y")):
    try:
        attempt()
    except OSError as exc:
        print(type(exc).__name__)
"""


def test_what_left_through_a_receive_channel_cannot_be_rewritten_only_appended_to(image, tmp_path):
    from bench.sandbox.protocol import Channel

    (tmp_path / "x").write_text("")
    result = BwrapSandbox().run(_request(image, tmp_path, ("python3", "-c", CHANNEL_REWRITE),
                                         channels=(Channel("report", receive=1 << 10),)))
    assert result.received_from("report").data == b"<first/><forged/>", result.stderr
    assert b"/dev/fd/" not in result.received_from("report").data


def test_a_child_left_holding_a_channel_does_not_keep_the_host_waiting(image, tmp_path):
    from bench.sandbox.protocol import Channel

    script = 'echo early > "$BENCH_CHANNEL_REPORT"; (sleep 300 > "$BENCH_CHANNEL_REPORT" &); echo started'
    started = time.monotonic()
    result = BwrapSandbox().run(_request(image, tmp_path, ("sh", "-c", script),
                                         channels=(Channel("report", receive=1 << 10),)))
    assert result.stdout == b"started\n" and result.received_from("report").data == b"early\n"
    assert time.monotonic() - started < 60  # the tree is killed with its first process; the pipe closes


def test_a_run_counts_its_own_wall_time_towards_the_phase_around_it(image, tmp_path):
    from bench import profile

    @profile.timed("bwrap-test")
    def run():
        return BwrapSandbox().run(_request(image, tmp_path, ("sleep", "0.2")))

    before = profile.snapshot()["phases"].get("bwrap-test", {"sandbox_runs": 0, "sandbox_seconds": 0.0})
    result = run()
    after = profile.snapshot()["phases"]["bwrap-test"]
    assert result.ok and after["sandbox_runs"] == before["sandbox_runs"] + 1
    assert abs(after["sandbox_seconds"] - before["sandbox_seconds"] - result.wall_seconds) < 0.002
    assert result.wall_seconds >= 0.2


# The time limit is a CPU budget where the cgroup counts CPU time: a quarter of a CPU stands for a loaded
# machine, where the same work takes four times the wall time.
SPIN = "import time\nend = time.process_time() + {seconds}\nwhile time.process_time() < end: pass\nprint('done')"


def test_a_run_slowed_by_load_is_not_stopped_while_its_cpu_time_is_within_the_limit(image, tmp_path):
    limits = Limits(wall_seconds=1.5, cpus=0.25)
    result = BwrapSandbox().run(_request(image, tmp_path, ("python3", "-c", SPIN.format(seconds=0.6)), limits=limits))
    assert result.ok and not result.timed_out and b"done" in result.stdout, (result.stderr, result.notes)
    assert result.wall_seconds > limits.wall_seconds, result.wall_seconds  # stopped here by a wall-clock limit
    assert "cgroup:cpu-time-limit" in result.enforcement


def test_a_run_that_spins_is_stopped_once_its_cpu_time_reaches_the_limit(image, tmp_path):
    result = BwrapSandbox().run(_request(image, tmp_path, ("python3", "-c", SPIN.format(seconds=600)),
                                         limits=Limits(wall_seconds=1.0)))
    assert result.timed_out and not result.ok
    assert result.cpu_seconds < 2.5, result.cpu_seconds
    # Stopped by its CPU budget; or, where the machine is so loaded that the run gets under a third of a core (a
    # fresh machine compiling llama.cpp on both), by the wall clock at wall_slack times the limit.
    slack = Limits(wall_seconds=1.0).wall_slack
    assert result.cpu_seconds >= 1.0 or result.wall_seconds >= slack * 1.0, (result.cpu_seconds, result.wall_seconds)


def test_a_run_that_waits_is_stopped_by_the_wall_clock_at_its_limit(image, tmp_path):
    result = BwrapSandbox().run(_request(image, tmp_path, ("sleep", "600"),
                                         limits=Limits(wall_seconds=1.0, wall_slack=10.0)))
    assert result.timed_out and not result.ok
    assert 1.0 <= result.wall_seconds < 5, result.wall_seconds
    assert result.cpu_seconds < 0.5


def test_any_run_is_stopped_by_the_wall_clock_at_its_slack(image, tmp_path):
    # a tenth of a CPU and more: computing, slowed, so not stopped at the limit; the slack still ends it
    code = "import time\nwhile True:\n    end = time.process_time() + 0.05\n    while time.process_time() < end: pass\n" \
           "    time.sleep(0.2)\n"
    result = BwrapSandbox().run(_request(image, tmp_path, ("python3", "-c", code),
                                         limits=Limits(wall_seconds=1.0, wall_slack=3.0)))
    assert result.timed_out and not result.ok
    assert 3.0 <= result.wall_seconds < 10, result.wall_seconds
