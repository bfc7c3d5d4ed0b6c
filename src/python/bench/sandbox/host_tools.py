"""Host programs the harness needs (bwrap, mmdebstrap): found on PATH, or installed from Debian when root."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

from bench.errors import InfrastructureError

_install_lock = threading.Lock()
APT_ENV = {"DEBIAN_FRONTEND": "noninteractive", "PATH": "/usr/sbin:/usr/bin:/sbin:/bin"}


def ensure_tool(binary: str, package: str, error: type[InfrastructureError]) -> str:
    """The absolute path of ``binary``; installs Debian's ``package`` with apt-get when missing and root."""
    found = shutil.which(binary)
    if found:
        return found
    command = f"apt-get install -y {package}"
    if os.geteuid() != 0:
        raise error(f"{binary} is not installed; install it with `{command}` (as root) and retry")
    with _install_lock, apt_lock():
        found = shutil.which(binary)
        if found:
            return found
        print(f"bench: {binary} not found; running `{command}`", file=sys.stderr)
        install_package(package, error)
    found = shutil.which(binary)
    if not found:
        raise error(f"`{command}` succeeded but {binary} is still not on PATH")
    return found


def apt_lock():
    """One apt run at a time across processes (parallel test runs may all find a tool missing)."""
    from bench.store.locks import file_lock

    return file_lock(Path("/tmp/.loopcontrolbench-apt.lock"))


def install_package(package: str, error: type[InfrastructureError]) -> None:
    """apt-get install, fetching the package lists first when the machine has none yet. Hold apt_lock()."""
    if not _apt_install(package):
        _apt(("apt-get", "update"), error)
        if not _apt_install(package):
            raise error(f"`apt-get install -y {package}` failed; install {package} by hand and retry")


def _apt_install(package: str) -> bool:
    done = subprocess.run(("apt-get", "-o", "DPkg::Lock::Timeout=600", "install", "-y",
                           "--no-install-recommends", package),
                          env={**os.environ, **APT_ENV}, stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL)
    return done.returncode == 0


def _apt(argv: tuple[str, ...], error: type[InfrastructureError]) -> None:
    done = subprocess.run((argv[0], "-o", "DPkg::Lock::Timeout=600", *argv[1:]), env={**os.environ, **APT_ENV}, capture_output=True, text=True)
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
        raise error(f"`{' '.join(argv)}` failed: {' | '.join(tail)}")
