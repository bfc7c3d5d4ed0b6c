"""The sandboxed steps behind :func:`bench.environment.lock.resolve_lock`, and regeneration of the tool locks.

Steps run in a scratch dir bound at /work with the tool venv at /env (read-only); only the index proxy's
socket gives them a way out. ``python -m bench.environment._lock_steps IMAGE`` regenerates the committed tool
locks (``lockfiles/tools/pip-tools.lock`` from an unpinned bootstrap, then ``sdist-build.lock`` with it) and
``lockfiles/tasks/synthetic.lock``; all three are resolved as of a fixed cut-off, so regenerating is a no-op.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from importlib import resources
from pathlib import Path

from bench.environment import _pip_tools, build_floor, compile_cache
from bench.environment.resolution_share import settled
from bench.environment._sandboxed import (
    IMAGE_PYTHON,
    StepContext,
    output_tail,
    probe_interpreter,
    run_step,
    world_writable_dir,
)
from bench.environment.lock import (
    SYNTHETIC_CUTOFF,
    TASK_LOCK_TITLE,
    TOOL_REQUIREMENTS,
    TOOLS_LOCK,
    Lock,
    LockInput,
    LockResult,
    atomic_write_text,
    checkout_path,
    load_lock,
    lock_header,
    normalise_cutoff,
)
from bench.environment.sdist_build import SDIST_BUILD_LOCK
from bench.errors import EnvironmentBuildError
from bench.sandbox.protocol import Mount

# Build backends an sdist-only dependency may need; offered to sdist builds, which have no network.
SDIST_BUILD_REQUIREMENTS = (
    "build", "flit-core", "hatch-vcs", "hatchling", "pdm-backend", "poetry-core", "setuptools",
    "setuptools-scm", "wheel",
)
TOOLS_TITLE = "Hash-pinned harness tools, installed offline into a cached venv that runs only in the sandbox."
_COLLECTOR = "_collect_requirements.py"
STEP_ENV = (("PIP_TOOLS_CACHE_DIR", "/tmp/pip-tools-cache"), ("PIP_NO_CACHE_DIR", "1"))


def tool_environment(image, sandbox_name: str, *, cache_dir: Path | None = None):
    """The cached venv with pip-tools, installed offline from the committed hash-pinned tool lock."""
    from bench.environment.venv import ensure_venv

    lock = load_lock(checkout_path(TOOLS_LOCK))
    return ensure_venv(lock, image, sandbox_name, cache_dir=cache_dir, allow_sdist_builds=False)


def collect_inputs(repo_dir: Path, tool, work: Path, proxy_socket: Path, extra: tuple[str, ...]):
    """(project name, inputs, dropped) as the collector script reports them from inside the sandbox."""
    step = world_writable_dir(work / "collect")
    repo = copy_repository(repo_dir, step / "repo")
    script = resources.files("bench.environment").joinpath(_COLLECTOR).read_text(encoding="utf-8")
    (step / "collect.py").write_text(script, encoding="utf-8")
    env = list(STEP_ENV)
    if not (repo / ".git").exists():  # setuptools-scm and hatch-vcs need a version from somewhere
        env.append(("SETUPTOOLS_SCM_PRETEND_VERSION", "0+unknown"))
    run_step(tool.context, (tool.python, "/work/collect.py", "/work/collected.json", "/work/repo", *extra),
             workdir=step, mounts=tool.mounts, env=tuple(env), proxy_socket=proxy_socket,
             what=f"collecting the test requirements of {repo_dir.name}")
    out = step / "collected.json"
    data = collected_json(out.read_bytes() if out.is_file() else b"")
    inputs = tuple(LockInput(str(r), str(o)) for r, o in data["requirements"])
    dropped = tuple(LockInput(str(r), str(o)) for r, o in data.get("dropped", []))
    return str(data.get("project", "")), inputs, dropped


def compile_inputs(
    inputs: tuple[LockInput, ...],
    *,
    tool,
    work: Path,
    proxy_socket: Path,
    cutoff: str | None,
    project: str = "",
    dropped: tuple[LockInput, ...] = (),
    title: str = TASK_LOCK_TITLE,
    late: tuple[str, ...] = (),
) -> LockResult:
    return compile_with(
        inputs, context=tool.context, pip_compile="/env/venv/bin/pip-compile", mounts=tool.mounts,
        python="%d.%d" % tool.manifest.interpreter.version_info, work=work, proxy_socket=proxy_socket,
        cutoff=cutoff, project=project, dropped=dropped, title=title, late=late,
    )


def compile_with(
    inputs: tuple[LockInput, ...],
    *,
    context: StepContext,
    pip_compile: str,
    mounts: tuple[Mount, ...],
    python: str,
    work: Path,
    proxy_socket: Path,
    cutoff: str | None,
    project: str = "",
    dropped: tuple[LockInput, ...] = (),
    title: str = TASK_LOCK_TITLE,
    late: tuple[str, ...] = (),
) -> LockResult:
    """pip-compile ``inputs`` as of ``cutoff``; without it (and saying why) if pip refuses or cannot resolve.

    Build requirements, and the packages named by the ``late`` prefixes, are resolved as of the interpreter's
    release when ``cutoff`` predates it (see ``build_floor``)."""
    step = world_writable_dir(work / "compile")
    (step / _pip_tools.INPUT_NAME).write_text(_pip_tools.requirements_in(tuple(i.requirement for i in inputs)))
    wanted = normalise_cutoff(cutoff)
    result, used, reason = _compile_once(context, pip_compile, mounts, step, proxy_socket, wanted), wanted, ""
    output = output_tail(result, lines=200)
    if not result.ok and wanted and _pip_tools.option_unsupported(output):
        reason = f"pip in the tool venv does not support {_pip_tools.UPLOADED_PRIOR_TO}"
    elif not result.ok and wanted and _pip_tools.resolution_impossible(output):
        reason = f"no resolution from files uploaded before {wanted}: {_last_line(output)}"
    if reason:  # only these two fall back; anything else (a crash, a timeout, the proxy) is an error
        result, used = _compile_once(context, pip_compile, mounts, step, proxy_socket, None), None
    # Only a resolution that reached its pins the plain way may be shared with another cut-off (see
    # resolution_share): a retry below, or a build floor that could not be applied, depends on more than its pins.
    plain = True
    if not result.ok and _pip_tools.sdist_metadata_failed(output_tail(result, lines=200)):
        plain = False
        # Prepare sdist metadata with the tool venv's own (current) setuptools instead of an isolated one
        # fetched as of the cut-off; the versions chosen are the same, only how their metadata is read differs.
        result = _compile_once(context, pip_compile, mounts, step, proxy_socket, used, build_isolation=False)
    if not result.ok and _pip_tools.sdist_metadata_failed(output_tail(result, lines=200)):
        # Still no metadata: the package may come from a file that sets up another environment (a benchmark's
        # compiled dependencies in the root requirements.txt); lock without those files, saying so.
        kept = tuple(i for i in inputs if not _pip_tools.environment_file(i.origin))
        if kept and len(kept) < len(inputs):
            package, cause = _pip_tools.metadata_failure(output_tail(result, lines=200))
            why = f"left out: metadata of {package or 'a package'} could not be generated"
            dropped = dropped + tuple(LockInput(i.requirement, f"{i.origin}: {why}") for i in inputs if i not in kept)
            inputs = kept
            (step / _pip_tools.INPUT_NAME).write_text(_pip_tools.requirements_in(tuple(i.requirement for i in inputs)))
            result = _compile_once(context, pip_compile, mounts, step, proxy_socket, used, build_isolation=False)
    if not result.ok:
        raise EnvironmentBuildError(_failure(output_tail(result, lines=200), output_tail(result)))
    body = (step / _pip_tools.OUTPUT_NAME).read_text(encoding="utf-8")
    first_pass = tuple((name, version) for name, version, _hashes, _marker in _pip_tools.parse_locked(body))
    header = lock_header(python, used, title)
    later = build_floor.build_cutoff(python, used)
    build = build_floor.split_build(inputs, late)[0]
    if later and build:
        recompiled = _build_tools_as_of(later, inputs, build, body, context, pip_compile, mounts, work,
                                        proxy_socket)
        if recompiled is not None:
            body = recompiled
            header = (*header[:2], build_floor.floor_note(build, late, later, python), *header[2:])
        else:
            plain = False
    if project:
        body = _pip_tools.drop_project(body, project)
    text = _pip_tools.with_header(body, header)
    lock = Lock.from_text(text)  # refuses any entry without a hash
    if not lock.requirements:
        raise EnvironmentBuildError("pip-compile produced an empty lock")
    return LockResult(text, lock.sha256, used, reason, tuple(sorted(set(inputs), key=_key)),
                      tuple(sorted(set(dropped), key=_key)), project, first_pass if plain else ())


def _build_tools_as_of(later: str, inputs: tuple[LockInput, ...], build: tuple[LockInput, ...], first_pass: str,
                       context, pip_compile: str, mounts, work: Path, proxy_socket: Path) -> str | None:
    """The lock again with the build requirements and what they pull in as of ``later``, all else held at
    ``first_pass``'s versions; None (keep the first pass) when no such resolution exists."""
    alone = world_writable_dir(work / "compile-build-alone")
    names = build_floor.build_names(build)
    caps = build_floor.backend_caps(names)
    (alone / _pip_tools.INPUT_NAME).write_text(_pip_tools.requirements_in(build_floor.relaxed(build, names) + caps))
    result = _compile_once(context, pip_compile, mounts, alone, proxy_socket, later)
    if not result.ok:
        return None
    closure = build_floor.locked_names((alone / _pip_tools.OUTPUT_NAME).read_text(encoding="utf-8"))
    step = world_writable_dir(work / "compile-build")
    held = build_floor.hold_constraints(first_pass, closure | names)
    (step / "held.txt").write_text(held + "".join(f"{cap}\n" for cap in caps))
    lines = _pip_tools.requirements_in(build_floor.relaxed(inputs, closure | names)) + "-c held.txt\n"
    (step / _pip_tools.INPUT_NAME).write_text(lines)
    result = _compile_once(context, pip_compile, mounts, step, proxy_socket, later)
    if not result.ok:
        return None
    return (step / _pip_tools.OUTPUT_NAME).read_text(encoding="utf-8")


def _compile_once(context, pip_compile, mounts, step: Path, proxy_socket: Path, cutoff: str | None,
                  build_isolation: bool = True):
    output = step / _pip_tools.OUTPUT_NAME
    if output.exists():
        output.unlink()
    argv = _pip_tools.compile_argv(pip_compile, uploaded_prior_to=cutoff, build_isolation=build_isolation)

    def run():
        return run_step(context, argv, what="pip-compile", workdir=step, mounts=mounts, env=STEP_ENV,
                        proxy_socket=proxy_socket, check=False)

    if not cutoff or not settled(cutoff):  # as of today: the index's answer may change, so never remembered
        return run()
    store = compile_cache.default_store()
    key = compile_cache.compile_key(argv, step, context.image_digest,
                                    tuple(f"{m.host_path}:{m.sandbox_path}" for m in mounts), STEP_ENV)
    remembered = compile_cache.load(store, key, output)
    if remembered is not None:
        return remembered
    result = run()
    compile_cache.save(store, key, output, result)
    return result


def _failure(output: str, tail: str) -> str:
    """The error of a failed pip-compile, its first line naming what failed (the package whose metadata could
    not be generated, and why, when pip's output says)."""
    if _pip_tools.sdist_metadata_failed(output):
        package, cause = _pip_tools.metadata_failure(output)
        return (f"pip-compile failed: metadata of {package or 'a package (pip does not say which)'} could not be "
                f"generated: {cause or 'no error line in the output'}\n{tail}")
    return f"pip-compile failed:\n{tail}"


def _key(item: LockInput) -> tuple[str, str]:
    return item.requirement, item.origin


def _last_line(text: str) -> str:
    lines = [line for line in text.splitlines() if line.strip()]
    return lines[-1].strip() if lines else ""


def collected_json(text: bytes) -> dict:
    try:
        data = json.loads(text.decode("utf-8"))
    except ValueError as error:
        raise EnvironmentBuildError(f"requirement collector printed no JSON: {error}") from error
    if not isinstance(data, dict) or not isinstance(data.get("requirements"), list):
        raise EnvironmentBuildError("requirement collector printed an unexpected document")
    return data


def copy_repository(repo_dir: Path, dest: Path) -> Path:
    """A private copy the build backend may scribble on (symlinks copied as links, never followed)."""
    if not repo_dir.is_dir():
        raise EnvironmentBuildError(f"repository {repo_dir} is not a directory")
    shutil.copytree(repo_dir, dest, symlinks=True)
    for folder, _dirs, files in os.walk(dest):
        os.chmod(folder, 0o777)
        for name in files:
            path = os.path.join(folder, name)
            if not os.path.islink(path):
                os.chmod(path, os.stat(path).st_mode | 0o644)
    return dest


# --- the committed tool locks -------------------------------------------------------------------------------


def bootstrap_tools_lock(image, sandbox_name: str = "bwrap") -> LockResult:
    """pip-tools.lock from scratch: pip-tools installed unpinned in a throwaway venv, then asked to pin itself."""
    from bench.environment._sandboxed import context_for
    from bench.sandbox.index_proxy import IndexProxy

    context = context_for(image, sandbox_name)
    with tempfile.TemporaryDirectory(prefix="bench-tools-") as temp, IndexProxy() as proxy:
        work = Path(temp)
        boot = world_writable_dir(work / "boot")
        scratch = world_writable_dir(work / "scratch")
        mounts = (Mount(boot, "/boot", writable=True),)
        run_step(context, (IMAGE_PYTHON, "-m", "venv", "/boot/venv"), what="bootstrap venv", workdir=scratch,
                 mounts=mounts)
        run_step(context, ("/boot/venv/bin/python", "-m", "pip", "install", *TOOL_REQUIREMENTS),
                 what="bootstrap install of pip-tools", workdir=scratch, mounts=mounts,
                 proxy_socket=proxy.socket_path, env=STEP_ENV)
        inputs = tuple(LockInput(r, "bench:tools") for r in TOOL_REQUIREMENTS)
        python = "%d.%d" % probe_interpreter(context, work).version_info
        return compile_with(inputs, context=context, pip_compile="/boot/venv/bin/pip-compile", mounts=mounts,
                            python=python, work=work, proxy_socket=proxy.socket_path, cutoff=SYNTHETIC_CUTOFF,
                            title=TOOLS_TITLE)


def sdist_build_lock(image, sandbox_name: str = "bwrap") -> LockResult:
    from bench.sandbox.index_proxy import IndexProxy

    tool = tool_environment(image, sandbox_name)
    inputs = tuple(LockInput(r, "bench:sdist-build") for r in SDIST_BUILD_REQUIREMENTS)
    with tempfile.TemporaryDirectory(prefix="bench-tools-") as temp, IndexProxy() as proxy:
        return compile_inputs(inputs, tool=tool, work=Path(temp), proxy_socket=proxy.socket_path,
                              cutoff=SYNTHETIC_CUTOFF, title=TOOLS_TITLE)


def regenerate(image_name: str, sandbox_name: str = "bwrap") -> None:
    from bench.environment.image import ensure_image

    image = ensure_image(image_name)
    tools = bootstrap_tools_lock(image, sandbox_name)
    print(f"{TOOLS_LOCK}: {tools.sha256} {tools.fallback_reason}", file=sys.stderr)
    atomic_write_text(checkout_path(TOOLS_LOCK), tools.text)
    builders = sdist_build_lock(image, sandbox_name)
    print(f"{SDIST_BUILD_LOCK}: {builders.sha256} {builders.fallback_reason}", file=sys.stderr)
    atomic_write_text(checkout_path(SDIST_BUILD_LOCK), builders.text)
    from bench.environment.lock import SYNTHETIC_LOCK, synthetic_lock

    synthetic = synthetic_lock(image, sandbox_name)
    print(f"{SYNTHETIC_LOCK}: {synthetic.sha256} {synthetic.fallback_reason}", file=sys.stderr)
    atomic_write_text(checkout_path(SYNTHETIC_LOCK), synthetic.text)


if __name__ == "__main__":
    regenerate(sys.argv[1] if len(sys.argv) > 1 else "trixie-py313")
