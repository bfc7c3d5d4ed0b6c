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
# The host programs a run needs together, by the Debian package that has each: a fresh machine's first run builds
# its image with mmdebstrap and then runs every test in bwrap. Whichever of them is missing is installed in the
# same apt transaction as the one asked for, which saves a second apt run (its package lists and dpkg triggers:
# several seconds of a fresh machine's main job).
HOST_TOOLS = (("mmdebstrap", "mmdebstrap"), ("bwrap", "bubblewrap"))


def ensure_tool(binary: str, package: str, error: type[InfrastructureError]) -> str:
    """The absolute path of ``binary``; installs Debian's ``package`` with apt-get when missing and root."""
    found = shutil.which(binary)
    if found:
        return found
    if os.geteuid() != 0:
        raise error(f"{binary} is not installed; install it with `apt-get install -y {package}` (as root) "
                    f"and retry")
    with _install_lock, apt_lock():
        found = shutil.which(binary)
        if found:
            return found
        packages = (package, *_missing_companions(binary))
        command = f"apt-get install -y {' '.join(packages)}"
        print(f"bench: {binary} not found; running `{command}`", file=sys.stderr)
        install_packages(packages, error)
    found = shutil.which(binary)
    if not found:
        raise error(f"`{command}` succeeded but {binary} is still not on PATH")
    return found


def apt_lock():
    """One apt run at a time across processes (parallel test runs may all find a tool missing)."""
    from bench.store.locks import file_lock

    return file_lock(Path("/tmp/.loopcontrolbench-apt.lock"))


def _missing_companions(binary: str) -> tuple[str, ...]:
    """The packages of the other host tools ``binary`` is used with that are not on PATH either."""
    if binary not in dict(HOST_TOOLS):
        return ()
    return tuple(package for other, package in HOST_TOOLS if other != binary and not shutil.which(other))


def install_packages(packages: tuple[str, ...], error: type[InfrastructureError]) -> None:
    """apt-get install, fetching the package lists first when the machine has none yet. Hold apt_lock()."""
    if not _apt_install(packages):
        _apt(("apt-get", "update"), error)
        if not _apt_install(packages):
            listed = " ".join(packages)
            raise error(f"`apt-get install -y {listed}` failed; install {listed} by hand and retry")


def _apt_install(packages: tuple[str, ...]) -> bool:
    done = subprocess.run(("apt-get", "-o", "DPkg::Lock::Timeout=600", "install", "-y",
                           "--no-install-recommends", *packages),
                          env={**os.environ, **APT_ENV}, stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL)
    return done.returncode == 0


def _apt(argv: tuple[str, ...], error: type[InfrastructureError]) -> None:
    done = subprocess.run((argv[0], "-o", "DPkg::Lock::Timeout=600", *argv[1:]), env={**os.environ, **APT_ENV}, capture_output=True, text=True)
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
        raise error(f"`{' '.join(argv)}` failed: {' | '.join(tail)}")
