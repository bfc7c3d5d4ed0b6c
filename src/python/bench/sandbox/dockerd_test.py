"""The private dockerd: starts from Debian's package, answers, and leaves nothing behind when stopped."""

from __future__ import annotations

import os
from pathlib import Path

from bench.sandbox import dockerd
from bench.sandbox._docker_api import connect
from bench.sandbox.dockerd import docker_daemon, ping, private_dockerd


def _root_of(url: str) -> Path:
    return Path(url.removeprefix("unix://")).parent


def _mount_points_under(root: Path) -> list[str]:
    with open("/proc/self/mountinfo") as mountinfo:
        return [line.split()[4] for line in mountinfo if line.split()[4].startswith(f"{root}/")]


def test_private_dockerd_answers_and_leaves_nothing_behind():
    with private_dockerd() as url:
        root = _root_of(url)
        assert ping(root / "docker.sock")
        info = connect(url).info()
        assert (info["Driver"], info["CgroupDriver"]) == ("overlay2", "cgroupfs")
        assert info["DockerRootDir"] == str(root / "data")
        assert dockerd._helpers_of(root)  # its containerd runs meanwhile
    assert not root.exists()
    assert dockerd._helpers_of(root) == ()
    assert _mount_points_under(root) == []


def test_daemon_never_touches_host_networking():
    argv = dockerd.dockerd_argv(Path("/usr/sbin/dockerd"), Path("/r"), "overlay2", "ns")
    for flag in ("--bridge=none", "--iptables=false", "--ip6tables=false", "--ip-masq=false",
                 "--config-file=/r/daemon.json", "--host=unix:///r/docker.sock"):
        assert flag in argv
    assert not any(a.startswith("--host=tcp") for a in argv)


def test_docker_daemon_reuses_a_daemon_that_answers(monkeypatch):
    with private_dockerd() as url:
        monkeypatch.setenv("BENCH_DOCKER_HOST", url)
        with docker_daemon() as got:
            assert got == url
        assert os.environ["BENCH_DOCKER_HOST"] == url


def test_docker_daemon_starts_a_private_one_when_the_configured_socket_is_dead(monkeypatch, tmp_path):
    dead = f"unix://{tmp_path / 'nobody.sock'}"
    monkeypatch.setenv("BENCH_DOCKER_HOST", dead)
    with docker_daemon() as got:
        assert got != dead
        assert ping(Path(got.removeprefix("unix://")))
        assert os.environ["BENCH_DOCKER_HOST"] == got
    assert os.environ["BENCH_DOCKER_HOST"] == dead
    assert not _root_of(got).exists()


def test_ping_is_false_without_a_daemon(tmp_path):
    assert ping(tmp_path / "missing.sock") is False
