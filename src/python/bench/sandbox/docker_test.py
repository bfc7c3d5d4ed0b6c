"""The docker backend against a private dockerd started for this module (no host daemon is touched)."""

from __future__ import annotations

import contextlib
import os
import signal
import tarfile
import threading
import time
from pathlib import Path

import pytest

from bench.errors import ImageError, SandboxError
from bench.environment.image import suite_image
from bench.sandbox import _docker_api, conformance
from bench.sandbox.docker import CONTAINER_PREFIX, DockerSandbox
from bench.sandbox.dockerd import private_dockerd
from bench.sandbox.protocol import ExecRequest, Limits, Mount, NetworkPolicy

TEST_IMAGE = conformance.SUITE_IMAGE


@pytest.fixture(scope="module")
def docker_host():
    with private_dockerd() as url, pytest.MonkeyPatch.context() as patch:
        # Backends made by the registry (the conformance suite) find the private daemon through this.
        patch.setenv("BENCH_DOCKER_HOST", url)
        yield url


@pytest.fixture(scope="module")
def image():
    from bench.environment.image import ensure_image

    return ensure_image(TEST_IMAGE)


@pytest.fixture(scope="module")
def api(docker_host):
    return _docker_api.connect(docker_host)


@pytest.fixture(scope="module")
def sandbox(docker_host):
    return DockerSandbox(docker_host)


@pytest.fixture
def workdir(tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    return work


def _request(image, workdir: Path, *argv: str, **fields) -> ExecRequest:
    env = fields.pop("env", (("PATH", "/usr/bin:/bin"), ("HOME", "/work")))
    return ExecRequest(argv=argv, workdir=workdir, image_root=Path("/nonexistent"), image_digest=image.digest,
                       env=env, **fields)


def _leftover_containers(api) -> tuple[str, ...]:
    return _docker_api.names_with_prefix(api, CONTAINER_PREFIX)


# --- image --------------------------------------------------------------------------------------------------


def test_imported_image_layer_diff_id_is_the_tar_digest(sandbox, api, image, workdir):
    assert sandbox.run(_request(image, workdir, "true")).exit_code == 0
    tag = _docker_api.image_tag("rootfs", image.digest_hex)
    assert api.inspect_image(tag)["RootFS"]["Layers"] == [image.digest]


def test_second_run_reuses_the_imported_image(sandbox, api, image, workdir):
    sandbox.run(_request(image, workdir, "true"))
    tag = _docker_api.image_tag("rootfs", image.digest_hex)
    before = api.inspect_image(tag)["Id"]
    sandbox.run(_request(image, workdir, "true"))
    assert api.inspect_image(tag)["Id"] == before


def test_tar_whose_content_is_not_its_digest_is_rejected(api, tmp_path, monkeypatch):
    (tmp_path / "file").write_text("x")
    tar = tmp_path / ("0" * 64 + ".tar")
    with tarfile.open(tar, "w") as archive:
        archive.add(tmp_path / "file", arcname="file")
    with pytest.raises(ImageError, match="layers"):
        _docker_api.ensure_imported(api, tar, "0" * 64, "corrupt")
    assert api.images(name="loopcontrolbench/corrupt") == []


def test_missing_tar_is_an_image_error(sandbox, tmp_path, workdir, monkeypatch):
    monkeypatch.setenv("BENCH_CACHE_DIR", str(tmp_path / "empty-cache"))
    request = ExecRequest(argv=("true",), workdir=workdir, image_root=Path("/x"), image_digest="sha256:" + "1" * 64)
    with pytest.raises(ImageError, match="missing"):
        sandbox.run(request)


def test_image_digest_must_be_a_sha256(sandbox, workdir):
    with pytest.raises(ImageError, match="sha256"):
        sandbox.run(ExecRequest(argv=("true",), workdir=workdir, image_root=Path("/x"), image_digest="latest"))


# --- runs ---------------------------------------------------------------------------------------------------


def test_exit_code_stdout_stderr_and_stdin(sandbox, image, workdir):
    result = sandbox.run(_request(image, workdir, "sh", "-c", "cat; echo oops >&2; exit 3", stdin=b"in\n"))
    assert (result.exit_code, result.signal, result.stdout, result.stderr) == (3, None, b"in\n", b"oops\n")
    assert not result.timed_out and not result.oom_killed


def test_environment_is_exactly_the_requested_one(sandbox, image, workdir):
    result = sandbox.run(_request(image, workdir, "/usr/bin/env", env=(("A", "1"), ("B", "two words"))))
    assert result.stdout == b"A=1\nB=two words\n"


def test_runs_unprivileged_without_capabilities_or_network(sandbox, image, workdir):
    script = "id -u; id -g; grep CapEff /proc/self/status; ls /sys/class/net; touch /etc/x 2>/dev/null || echo ro"
    result = sandbox.run(_request(image, workdir, "sh", "-c", script))
    lines = result.stdout.decode().split("\n")
    assert lines[0] != "0" and lines[1] != "0"
    assert lines[2] == "CapEff:\t0000000000000000"
    assert lines[3:] == ["lo", "ro", ""]


def test_work_dir_is_writable_and_handed_back_to_its_owner(sandbox, image, workdir):
    (workdir / "given").write_text("hello")
    before = os.stat("/etc/shadow")
    script = "cat given > copy && mkdir sub && echo x > sub/f && ln -s /etc/shadow link"
    assert sandbox.run(_request(image, workdir, "sh", "-c", script)).exit_code == 0
    assert (workdir / "copy").read_text() == "hello"
    owners = {(p.lstat().st_uid, p.lstat().st_gid) for p in (workdir, *workdir.rglob("*"))}
    assert owners == {(os.getuid(), os.getgid())}
    after = os.stat("/etc/shadow")
    assert (after.st_uid, after.st_gid) == (before.st_uid, before.st_gid)


def test_mounts_are_read_only_unless_writable(sandbox, image, workdir, tmp_path):
    ro, rw = tmp_path / "ro", tmp_path / "rw"
    ro.mkdir(mode=0o755)
    rw.mkdir()
    (ro / "data").write_text("seen")
    os.chmod(ro / "data", 0o644)
    mounts = (Mount(ro, "/mnt/ro"), Mount(rw, "/mnt/rw", writable=True))
    script = "cat /mnt/ro/data; touch /mnt/ro/x 2>/dev/null || echo denied; echo w > /mnt/rw/out"
    result = sandbox.run(_request(image, workdir, "sh", "-c", script, mounts=mounts))
    assert result.stdout == b"seendenied\n"
    assert (rw / "out").read_text() == "w\n"
    assert (rw / "out").stat().st_uid == os.getuid()


def test_output_is_capped_per_stream_with_flags(sandbox, image, workdir):
    script = "import sys; sys.stdout.write('a' * 300000); sys.stderr.write('b' * 10)"
    result = sandbox.run(_request(image, workdir, "python3", "-c", script, limits=Limits(output_bytes=1000)))
    assert (result.stdout, result.stdout_truncated) == (b"a" * 1000, True)
    assert (result.stderr, result.stderr_truncated) == (b"b" * 10, False)
    assert result.exit_code == 0


def test_memory_limit_kills_and_reports_oom(sandbox, image, workdir):
    limits = Limits(memory_bytes=128 << 20)
    result = sandbox.run(_request(image, workdir, "python3", "-c", "b = bytearray(600 << 20)", limits=limits))
    assert result.oom_killed and result.signal == signal.SIGKILL and result.exit_code is None


def test_pids_limit_caps_forks(sandbox, image, workdir):
    script = "import os\nn = 0\ntry:\n    while True:\n        if os.fork() == 0:\n            import time; time.sleep(30)\n        n += 1\nexcept OSError:\n    print(n)"
    result = sandbox.run(_request(image, workdir, "python3", "-c", script, limits=Limits(pids=20, wall_seconds=60)))
    assert result.exit_code == 0
    assert int(result.stdout) < 20


def test_file_size_limit(sandbox, image, workdir):
    limits = Limits(file_size_bytes=1 << 20)
    script = "head -c 2000000 /dev/zero > /work/big; echo $?"
    result = sandbox.run(_request(image, workdir, "sh", "-c", script, limits=limits))
    assert (workdir / "big").stat().st_size == 1 << 20
    assert result.exit_code == 0 and result.stdout != b"0\n"


def test_command_killed_by_signal_reports_the_signal(sandbox, image, workdir):
    result = sandbox.run(_request(image, workdir, "sh", "-c", "kill -TERM $$"))
    assert (result.exit_code, result.signal) == (None, signal.SIGTERM)


def test_cpu_time_is_read_from_the_containers_own_cgroup(sandbox, image, workdir):
    spin = "import time\nend = time.monotonic() + 1.5\nwhile time.monotonic() < end: pass"
    result = sandbox.run(_request(image, workdir, "python3", "-c", spin, limits=Limits(cpus=1.0)))
    assert result.exit_code == 0
    assert 0.3 <= result.cpu_seconds <= 3.0
    assert any(note.startswith("cpu time sampled from the container's cgroup") for note in result.notes)


def test_cpu_counter_never_reads_a_process_outside_the_container():
    assert _docker_api._local_cgroup_counter(os.getpid(), "f" * 64) is None
    assert _docker_api._local_cgroup_counter(0, "f" * 64) is None


def test_index_proxy_policy_without_socket_is_refused(sandbox, image, workdir):
    with pytest.raises(SandboxError, match="proxy_socket"):
        sandbox.run(_request(image, workdir, "true", network=NetworkPolicy.INDEX_PROXY))


# --- teardown -----------------------------------------------------------------------------------------------


def test_timeout_kills_and_removes_the_container(sandbox, api, image, workdir):
    started = time.monotonic()
    result = sandbox.run(_request(image, workdir, "sleep", "600", limits=Limits(wall_seconds=1)))
    assert result.timed_out and result.signal == signal.SIGKILL
    assert time.monotonic() - started < 60
    assert _leftover_containers(api) == ()


def test_keyboard_interrupt_kills_and_removes_the_container(sandbox, api, docker_host, image, workdir):
    main = threading.get_ident()
    watcher = _docker_api.connect(docker_host)

    def interrupt_once_running() -> None:
        # The ^C is sent on every way out of the wait: a listing that fails under load (the daemon slow to
        # answer) must not leave the run to its wall limit and the test to read that as "not interrupted".
        deadline = time.monotonic() + 60
        try:
            while time.monotonic() < deadline:
                with contextlib.suppress(Exception):
                    if watcher.containers(filters={"name": CONTAINER_PREFIX}):
                        break
                time.sleep(0.05)
        finally:
            signal.pthread_kill(main, signal.SIGINT)  # what ^C does to the harness's main thread

    interrupter = threading.Thread(target=interrupt_once_running)
    interrupter.start()
    with pytest.raises(KeyboardInterrupt):
        sandbox.run(_request(image, workdir, "sleep", "600", limits=Limits(wall_seconds=300)))
    interrupter.join()
    assert _leftover_containers(api) == ()
    assert {p.stat().st_uid for p in (workdir, *workdir.rglob("*"))} == {os.getuid()}


def test_failed_start_removes_the_container(sandbox, api, image, workdir, tmp_path):
    # A file bound over a directory of the image: docker creates the container, then cannot start it.
    (tmp_path / "a-file").write_text("x")
    with pytest.raises(SandboxError, match="could not start"):
        sandbox.run(_request(image, workdir, "true", mounts=(Mount(tmp_path / "a-file", "/var"),)))
    assert _leftover_containers(api) == ()
    assert sandbox.leftovers() == ()


def test_invalid_requests_are_refused_before_docker_sees_them(sandbox, image, workdir):
    bad = (
        dict(mounts=(Mount(workdir / "missing", "/mnt/x"),)),
        dict(mounts=(Mount(workdir, "/usr/lib"),)),
        dict(mounts=(Mount(workdir, "relative"),)),
        dict(env=(("A=B", "x"),)),
        dict(cwd="work"),
    )
    for fields in bad:
        with pytest.raises(SandboxError):
            sandbox.run(_request(image, workdir, "true", **fields))
    with pytest.raises(SandboxError):
        sandbox.run(_request(image, workdir, "X=1"))


def test_no_sandbox_containers_are_left_behind(sandbox, api, image, workdir):
    for argv in (("true",), ("false",), ("sh", "-c", "sleep 100 & exit 0")):
        sandbox.run(_request(image, workdir, *argv))
    assert _leftover_containers(api) == ()


# --- the shared conformance and attack suite ----------------------------------------------------------------


@pytest.fixture(scope="module")
def suite(docker_host):
    from bench.sandbox.registry import get_sandbox

    image_root, digest = suite_image()
    return get_sandbox("docker"), image_root, digest


@pytest.mark.parametrize("case", conformance.all_cases(), ids=lambda one: one.case_name)
def test_conformance_and_attack_suite(case, suite, tmp_path):
    sandbox, image_root, digest = suite
    os.chmod(tmp_path, 0o755)
    result = conformance.run_case("docker", case, sandbox, image_root, digest, tmp_path)
    assert result.passed or result.known_failure, result.detail
