"""Per-exec overhead of a sandbox backend against running the same command bare, measured in one run.

Commands: ``true``, ``python3 -c pass`` and a small pytest run (pytest installed offline, from a wheelhouse
downloaded on the host, into a venv made inside the work dir). Every command runs on the image's own binaries
both ways, so only the isolation differs:

* sandboxed: ``get_sandbox(backend).run(...)`` with default limits (namespaces, cgroups, rlimits, teardown);
* bare: ``chroot`` into the same unpacked rootfs as root (for pytest, inside a private mount namespace that
  binds /dev, /proc and the work dir, because the venv lives there).

Runs alternate bare/sandboxed to spread machine noise; the report gives medians of N runs, the ratio and the
absolute overhead. Usage::

    PYTHONPATH=src/python python benchmarks/sandbox_overhead.py [--backend bwrap|docker] [--repeat 15]

For docker, a private dockerd is started unless ``$BENCH_DOCKER_HOST`` / ``$DOCKER_HOST`` answers; its time
includes container create/attach/start/remove per run, as a caller of ``Sandbox.run`` sees it.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

TEST_FILE = '''
import pytest

@pytest.mark.parametrize("n", range(5))
def test_square(n):
    assert n * n == n ** 2

def test_text():
    assert "sandbox".upper() == "SANDBOX"
'''
SANDBOX_ENV = (("PATH", "/usr/bin:/bin"), ("HOME", "/work"), ("LANG", "C.UTF-8"),
               ("PIP_DISABLE_PIP_VERSION_CHECK", "1"))
BARE_ENV = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "HOME": "/mnt", "LANG": "C.UTF-8", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}


@dataclass(frozen=True)
class Measurement:
    command: str
    repeat: int
    bare_seconds: float  # median
    sandbox_seconds: float  # median
    bare_kind: str

    @property
    def ratio(self) -> float:
        return self.sandbox_seconds / self.bare_seconds

    @property
    def overhead_ms(self) -> float:
        return (self.sandbox_seconds - self.bare_seconds) * 1000


def measure(backend_name: str = "bwrap", repeat: int = 15, pytest_repeat: int | None = None,
            progress=None) -> tuple[Measurement, ...]:
    """Medians of ``repeat`` alternating bare/sandboxed runs of each command, as one table."""
    from bench.environment.image import suite_image
    from bench.sandbox.protocol import ExecRequest, Limits, Mount
    from bench.sandbox.registry import get_sandbox

    if os.geteuid() != 0:
        raise SystemExit("the bare baseline uses chroot: run as root")
    sandbox = get_sandbox(backend_name)
    image_root, digest = suite_image()
    wheels = _pytest_wheelhouse()
    results = []
    with tempfile.TemporaryDirectory(prefix="lcb-overhead-") as scratch:
        # As in scoring, the venv is not in the work dir: it is made once through a writable mount, then bound
        # read-only at the same path (/opt/venv) for the measured runs.
        box_work, bare_work = Path(scratch) / "box", Path(scratch) / "bare"
        box_opt, bare_opt = Path(scratch) / "box-opt", Path(scratch) / "bare-opt"
        for folder in (box_work, bare_work, box_opt, bare_opt):
            folder.mkdir()
        for work in (box_work, bare_work):
            (work / "tests").mkdir(parents=True)
            (work / "tests" / "test_small.py").write_text(TEST_FILE)

        def boxed(argv, *, mounts=(Mount(box_opt, "/opt"),)):
            request = ExecRequest(argv=tuple(argv), workdir=box_work, image_root=image_root, image_digest=digest,
                                  env=SANDBOX_ENV, limits=Limits(wall_seconds=300), mounts=mounts)
            result = sandbox.run(request)
            if not result.ok:
                raise RuntimeError(f"sandboxed {argv} failed: {result.exit_code} {result.stderr[-500:]!r}")
            return result

        install = ("sh", "-c", "python3 -m venv /opt/venv && /opt/venv/bin/pip install -q --no-index "
                   "--find-links /wheels pytest")
        boxed(install, mounts=(Mount(wheels, "/wheels"), Mount(box_opt, "/opt", writable=True)))
        _bare_mounted(image_root, bare_work, bare_opt, wheels, install)
        pytest_argv = ("/opt/venv/bin/python", "-m", "pytest", "-q", "-p", "no:cacheprovider")
        commands = (
            ("true", lambda: boxed(("true",), mounts=()), lambda: _bare(image_root, ("true",)), "chroot"),
            ("python3 -c pass", lambda: boxed(("python3", "-c", "pass"), mounts=()),
             lambda: _bare(image_root, ("python3", "-c", "pass")), "chroot"),
            ("pytest (6 tests)", lambda: boxed((*pytest_argv, "/work/tests")),
             lambda: _bare_mounted(image_root, bare_work, bare_opt, wheels, (*pytest_argv, "/mnt/tests")),
             "chroot + private mount ns"),
        )
        for name, run_boxed, run_bare, bare_kind in commands:
            count = pytest_repeat if (pytest_repeat and name.startswith("pytest")) else repeat
            run_boxed(), run_bare()  # warm caches
            bare_times, box_times = [], []
            for _ in range(count):
                bare_times.append(_timed(run_bare))
                box_times.append(_timed(run_boxed))
            results.append(Measurement(name, count, statistics.median(bare_times), statistics.median(box_times),
                                       bare_kind))
            if progress:
                progress(results[-1])
    return tuple(results)


def _timed(call) -> float:
    started = time.perf_counter()
    call()
    return time.perf_counter() - started


def _bare(image_root: Path, argv) -> None:
    subprocess.run(("chroot", str(image_root), *argv), env=BARE_ENV, check=True, stdout=subprocess.DEVNULL)


def _bare_mounted(image_root: Path, work: Path, opt: Path, wheels: Path, argv) -> None:
    """chroot with /dev, /proc, the work dir at /mnt, ``opt`` at /opt and the wheels at /srv, all bound in a
    private mount namespace (nothing changes in the shared rootfs)."""
    script = ('r="$1"; shift; mount --rbind /dev "$r/dev" && mount -t proc proc "$r/proc" && '
              'mount --bind "$1" "$r/mnt" && mount --bind "$2" "$r/opt" && mount --bind "$3" "$r/srv" && '
              'shift 3 && exec chroot "$r" "$@"')
    argv = tuple(a.replace("/wheels", "/srv") for a in argv)
    subprocess.run(("unshare", "--mount", "--propagation", "private", "sh", "-c", script, "sh", str(image_root),
                    str(work), str(opt), str(wheels), *argv), env=BARE_ENV, check=True, stdout=subprocess.DEVNULL)


def _pytest_wheelhouse() -> Path:
    """pytest and its dependencies as wheels for the image's Python 3.13, downloaded once (runs nothing)."""
    from bench.variables import cache_dir

    folder = cache_dir() / "benchmarks" / "pytest-wheels"
    if not any(folder.glob("pytest-*.whl")):
        folder.mkdir(parents=True, exist_ok=True)
        env = {**os.environ, "PIP_CONFIG_FILE": "/dev/null"}
        subprocess.run((sys.executable, "-m", "pip", "download", "-q", "--only-binary", ":all:", "--python-version",
                        "3.13", "--implementation", "cp", "--platform", "manylinux2014_x86_64", "-d", str(folder),
                        "pytest"), env=env, check=True)
    for wheel in folder.iterdir():
        os.chmod(wheel, 0o644)
    os.chmod(folder, 0o755)
    return folder


def table(rows: tuple[Measurement, ...], backend: str) -> str:
    lines = [f"backend {backend}: median of N alternating runs (bare = same image binaries via chroot)",
             f"{'command':<20} {'N':>3} {'bare ms':>9} {'sandbox ms':>11} {'ratio':>6} {'overhead ms':>12}"]
    for row in rows:
        lines.append(f"{row.command:<20} {row.repeat:>3} {row.bare_seconds * 1000:>9.1f} "
                     f"{row.sandbox_seconds * 1000:>11.1f} {row.ratio:>6.2f} {row.overhead_ms:>12.1f}")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--backend", default="bwrap")
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--pytest-repeat", type=int, default=None, help="runs of the pytest command (default: --repeat)")
    args = parser.parse_args()
    with _daemon_for(args.backend):
        rows = measure(args.backend, args.repeat, args.pytest_repeat,
                       progress=lambda row: print(f"measured {row.command}", file=sys.stderr))
    print(table(rows, args.backend))
    return 0


def _daemon_for(backend: str):
    """For docker: the configured daemon if it answers, else a private dockerd for the measurement."""
    if backend != "docker":
        return contextlib.nullcontext()
    from bench.sandbox.dockerd import docker_daemon

    return docker_daemon()


if __name__ == "__main__":
    sys.exit(main())
