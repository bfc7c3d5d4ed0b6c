"""A private docker daemon for tests and for ``bench sandbox check --backend docker`` without a daemon.

The daemon comes from Debian's ``docker.io`` package (installed with apt-get when missing and we are root).
Everything it owns lives in one temp dir: data root, exec root, pid file, unix socket, config and log. It gets
no bridge and touches no iptables, so it never changes the host's network; containers run with
``--network none`` anyway. It is stopped by PID (SIGTERM, then SIGKILL) and its mounts and files are removed.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

from bench.errors import SandboxError

DOCKERD_CANDIDATES = ("/usr/sbin/dockerd", "/usr/bin/dockerd")
START_TIMEOUT_SECONDS = 60.0
STOP_TIMEOUT_SECONDS = 30.0
STORAGE_DRIVERS = ("overlay2", "vfs")  # vfs copies every layer but works on any backing filesystem


def find_dockerd() -> Path:
    """The package's dockerd (not a client-only ``docker`` elsewhere on PATH); installs docker.io if needed."""
    for candidate in DOCKERD_CANDIDATES:
        if os.access(candidate, os.X_OK):
            return Path(candidate)
    if os.geteuid() != 0:
        raise SandboxError("dockerd not found; install Debian's docker.io package (needs root)")
    from bench.sandbox.host_tools import apt_lock, install_packages

    with apt_lock():
        if not any(os.access(c, os.X_OK) for c in DOCKERD_CANDIDATES):
            print("bench: installing Debian's docker.io package for a private dockerd", file=sys.stderr)
            install_packages(("docker.io",), SandboxError)
    for candidate in DOCKERD_CANDIDATES:
        if os.access(candidate, os.X_OK):
            return Path(candidate)
    raise SandboxError("docker.io installed but no dockerd found in " + ", ".join(DOCKERD_CANDIDATES))


def dockerd_argv(dockerd: Path, root: Path, storage_driver: str, namespace: str) -> list[str]:
    return [
        str(dockerd),
        f"--config-file={root / 'daemon.json'}",  # never read the host's /etc/docker/daemon.json
        f"--data-root={root / 'data'}",
        f"--exec-root={root / 'exec'}",
        f"--pidfile={root / 'dockerd.pid'}",
        f"--host=unix://{root / 'docker.sock'}",
        f"--storage-driver={storage_driver}",
        "--bridge=none",
        "--iptables=false",
        "--ip6tables=false",
        "--ip-masq=false",
        "--userland-proxy=false",
        # cgroupfs works on hybrid (v1) hosts and on v2 hosts alike; the systemd driver needs a running systemd.
        "--exec-opt=native.cgroupdriver=cgroupfs",
        # Own containerd namespaces: two private daemons sharing a system containerd never see each other.
        f"--containerd-namespace={namespace}",
        f"--containerd-plugins-namespace={namespace}-plugins",
        "--log-level=warn",
    ]


def ping(socket_path: Path, timeout: float = 2.0) -> bool:
    """True when the daemon at ``socket_path`` answers ``GET /_ping`` with OK (stdlib only)."""
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.settimeout(timeout)
            conn.connect(str(socket_path))
            conn.sendall(b"GET /_ping HTTP/1.0\r\nHost: docker\r\n\r\n")
            reply = b""
            while chunk := conn.recv(4096):
                reply += chunk
    except OSError:
        return False
    return reply.startswith(b"HTTP/1.") and b" 200 " in reply.split(b"\r\n", 1)[0] and reply.endswith(b"OK")


def _start(dockerd: Path, root: Path, storage_driver: str) -> subprocess.Popen:
    (root / "daemon.json").write_text("{}\n")
    argv = dockerd_argv(dockerd, root, storage_driver, f"lcb-{uuid.uuid4().hex[:12]}")
    with open(root / "dockerd.log", "ab") as log:
        process = subprocess.Popen(
            argv, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
    deadline = time.monotonic() + START_TIMEOUT_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            _stop(process, root)
            raise SandboxError(f"dockerd ({storage_driver}) exited with {process.returncode}: {_log_tail(root)}")
        if ping(root / "docker.sock"):
            return process
        time.sleep(0.1)
    _stop(process, root)
    raise SandboxError(f"dockerd did not answer within {START_TIMEOUT_SECONDS:.0f}s: {_log_tail(root)}")


def _log_tail(root: Path) -> str:
    try:
        return (root / "dockerd.log").read_text(errors="replace")[-800:].strip()
    except OSError:
        return "(no log)"


def _stop(process: subprocess.Popen, root: Path) -> None:
    """SIGTERM (dockerd stops its containers and its containerd), wait, then SIGKILL."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(STOP_TIMEOUT_SECONDS)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    # After a SIGKILL the daemon's containerd and shims (own sessions) outlive it; they name our root.
    for pid in _helpers_of(root):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)


def _helpers_of(root: Path) -> tuple[int, ...]:
    """PIDs of processes whose command line names ``root`` (the daemon's containerd and shims)."""
    marker = str(root).encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if marker in (entry / "cmdline").read_bytes():
                found.append(int(entry.name))
        except OSError:
            continue  # exited meanwhile
    return tuple(found)


def _unmount_below(root: Path) -> None:
    """Lazily unmount whatever the daemon left mounted under ``root`` (deepest first)."""
    prefix = str(root) + "/"
    points = []
    with open("/proc/self/mountinfo") as mountinfo:
        for line in mountinfo:
            point = line.split()[4].encode().decode("unicode_escape")
            if point.startswith(prefix):
                points.append(point)
    for point in sorted(points, key=len, reverse=True):
        subprocess.run(["umount", "--lazy", point], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _mount_tmpfs(path: Path) -> bool:
    """A tmpfs for the daemon's data: imports run at memory speed and teardown is one unmount instead of
    deleting tens of thousands of layer files. False (plain disk) when it cannot be mounted."""
    path.mkdir(mode=0o710)
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "mode=0710", "lcb-dockerd", str(path)],
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return done.returncode == 0


def _clear(folder: Path) -> None:
    for entry in folder.iterdir() if folder.is_dir() else ():
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry, ignore_errors=True)
        else:
            entry.unlink(missing_ok=True)


@contextlib.contextmanager
def private_dockerd(*, data_in_memory: bool = True):
    """Start a private dockerd and yield its endpoint (``unix:///tmp/…/docker.sock``); stop it on exit.

    ``data_in_memory`` keeps images and containers on a tmpfs (the daemon is thrown away afterwards anyway).
    """
    if os.geteuid() != 0:
        raise SandboxError("a private dockerd needs root")
    dockerd = find_dockerd()
    root = Path(tempfile.mkdtemp(prefix="lcb-dockerd-"))
    process = None
    try:
        if data_in_memory:
            _mount_tmpfs(root / "data")
        errors = []
        for driver in STORAGE_DRIVERS:
            try:
                process = _start(dockerd, root, driver)
                break
            except SandboxError as exc:
                errors.append(str(exc))
                _clear(root / "data")  # the next storage driver starts from an empty data root
        if process is None:
            raise SandboxError("no private dockerd could start: " + " | ".join(errors))
        yield f"unix://{root / 'docker.sock'}"
    finally:
        if process is not None:
            _stop(process, root)
        _unmount_below(root)
        shutil.rmtree(root, ignore_errors=True)


@contextlib.contextmanager
def docker_daemon():
    """The configured daemon when one answers, else a private one for the duration of the block.

    ``$BENCH_DOCKER_HOST`` points at the daemon inside the block, so backends made by the registry (which
    take no arguments) use it: ``with docker_daemon(): run_suites("docker", suite_image())``.
    """
    from bench.sandbox._docker_api import docker_host

    host = docker_host()
    # A TCP/SSH endpoint is trusted as configured (the client reports failures); a socket must answer.
    if not host.startswith("unix://") or ping(Path(host.removeprefix("unix://"))):
        with _exported(host):
            yield host
        return
    with private_dockerd() as private, _exported(private):
        yield private


@contextlib.contextmanager
def _exported(host: str):
    before = os.environ.get("BENCH_DOCKER_HOST")
    os.environ["BENCH_DOCKER_HOST"] = host
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("BENCH_DOCKER_HOST", None)
        else:
            os.environ["BENCH_DOCKER_HOST"] = before
