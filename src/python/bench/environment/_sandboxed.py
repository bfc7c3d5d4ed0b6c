"""Running environment-building steps in the sandbox: one request shape, one error, one base environment.

Every step that executes something from a package or a tested repository (a build backend, setup.py, pip
installing into a venv, pytest) goes through :func:`run_step`. A failed step raises EnvironmentBuildError
with the tail of its output, so the caller can report why an environment could not be built.
"""

from __future__ import annotations

import json
import os
import threading
from dataclasses import dataclass
from pathlib import Path

from bench.environment.manifest import INTERPRETER_QUERY, InterpreterInfo
from bench.errors import EnvironmentBuildError
from bench.sandbox.protocol import ExecRequest, ExecResult, Limits, Mount, NetworkPolicy

IMAGE_PYTHON = "/usr/bin/python3"
SOURCE_DATE_EPOCH = "315532800"  # 1980-01-01: wheels built from sdists get fixed zip timestamps

# Nothing from the host leaks in; pip reads no config file and writes no cache that outlives the run.
BASE_ENV = (
    ("PATH", "/usr/bin:/bin"),
    ("HOME", "/tmp/home"),
    ("LANG", "C.UTF-8"),
    ("PIP_CONFIG_FILE", "/dev/null"),
    ("PIP_DISABLE_PIP_VERSION_CHECK", "1"),
    ("PIP_NO_INPUT", "1"),
    ("PIP_ROOT_USER_ACTION", "ignore"),
    ("PYTHONNOUSERSITE", "1"),
    ("SOURCE_DATE_EPOCH", SOURCE_DATE_EPOCH),
)

STEP_LIMITS = Limits(
    wall_seconds=1200.0, memory_bytes=4 << 30, pids=1024, cpus=2.0, output_bytes=4 << 20, tmp_bytes=1 << 30
)


@dataclass(frozen=True)
class StepContext:
    """Which sandbox backend and image the steps run on."""

    sandbox_name: str
    image_root: Path
    image_digest: str


def context_for(image, sandbox_name: str) -> StepContext:
    from bench.environment.image import unpack_image

    return StepContext(sandbox_name, Path(unpack_image(image)), str(image.digest))


def run_step(
    context: StepContext,
    argv: tuple[str, ...],
    *,
    what: str,
    workdir: Path,
    mounts: tuple[Mount, ...] = (),
    env: tuple[tuple[str, str], ...] = (),
    proxy_socket: Path | None = None,
    cwd: str = "/work",
    limits: Limits = STEP_LIMITS,
    check: bool = True,
) -> ExecResult:
    """Run one step; with ``proxy_socket`` it may reach the package index, otherwise it has no network."""
    from bench.sandbox.registry import get_sandbox

    merged = dict(BASE_ENV)
    merged.update(env)
    request = ExecRequest(
        argv=tuple(argv),
        workdir=workdir,
        image_root=context.image_root,
        env=tuple(sorted(merged.items())),
        limits=limits,
        network=NetworkPolicy.INDEX_PROXY if proxy_socket is not None else NetworkPolicy.NONE,
        mounts=tuple(mounts),
        cwd=cwd,
        image_digest=context.image_digest,
        proxy_socket=proxy_socket,
    )
    result = get_sandbox(context.sandbox_name).run(request)
    if check and not result.ok:
        raise EnvironmentBuildError(f"{what} failed ({describe(result)}):\n{output_tail(result)}")
    return result


def describe(result: ExecResult) -> str:
    if result.timed_out:
        return f"timed out after {result.wall_seconds:.0f} s"
    if result.oom_killed:
        return "killed: out of memory"
    if result.signal:
        return f"killed by signal {result.signal}"
    return f"exit code {result.exit_code}"


def output_tail(result: ExecResult, lines: int = 40) -> str:
    text = (result.stderr or b"").decode("utf-8", "replace").strip()
    out = (result.stdout or b"").decode("utf-8", "replace").strip()
    combined = "\n".join(part for part in (out, text) if part).splitlines()
    return "\n".join(combined[-lines:])


def world_readable_dir(path: Path) -> Path:
    """Make a host dir the sandbox's unprivileged user can read (tempfile makes them 0700)."""
    path.mkdir(parents=True, exist_ok=True)
    os.chmod(path, 0o755)
    return path


def world_writable_dir(path: Path) -> Path:
    """A host dir the sandbox's unprivileged user may write into (bound writable as an extra mount)."""
    path.mkdir(parents=True, exist_ok=True)
    os.chmod(path, 0o777)
    return path


_probed: dict[str, InterpreterInfo] = {}
_probe_lock = threading.Lock()


def probe_interpreter(context: StepContext, scratch: Path) -> InterpreterInfo:
    """The image interpreter's self-description (cached per image digest for this process)."""
    with _probe_lock:
        if context.image_digest in _probed:
            return _probed[context.image_digest]
    workdir = world_writable_dir(scratch / "probe")
    result = run_step(context, (IMAGE_PYTHON, "-I", "-c", INTERPRETER_QUERY), what="interpreter probe", workdir=workdir)
    try:
        info = InterpreterInfo.from_json(json.loads(result.stdout.decode("utf-8")))
    except (ValueError, KeyError) as error:
        raise EnvironmentBuildError(f"interpreter probe printed no usable JSON: {error}") from error
    with _probe_lock:
        _probed[context.image_digest] = info
    return info
