"""Venvs built from a lock, cached by env key, and the per-run view of one for a repository under test.

A venv is built once per env key (image digest + lock sha256 + interpreter) INSIDE a network-less sandbox:
its cache dir ``$BENCH_CACHE_DIR/venvs/<env_key>/`` is bound writable at ``/env`` during the build, so the venv
lives at the fixed in-sandbox path ``/env/venv`` (absolute shebangs and ``pyvenv.cfg`` stay valid), and
read-only afterwards. The build happens in a temp dir renamed into place, so a cache entry is complete or
absent. A second :func:`ensure_venv` with the same key installs nothing (:func:`build_count` proves it).

Per run, :func:`prepare_workspace_env` makes the repository importable without touching the shared venv: a
small overlay venv (bound at ``/overlay``) whose ``.pth`` adds the shared site-packages, into which the repo is
installed editable with ``--no-deps --no-index --no-build-isolation`` inside the sandbox; a repository without
any build configuration is put on ``PYTHONPATH`` instead.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from bench import profile
from bench.environment import _pip_tools
from bench.environment._sandboxed import (
    IMAGE_PYTHON,
    StepContext,
    context_for,
    probe_interpreter,
    run_step,
    world_writable_dir,
)
from bench.environment.lock import Lock, as_lock
from bench.environment.manifest import (
    DISTRIBUTIONS_QUERY,
    INTERPRETER_QUERY,
    InterpreterInfo,
    Manifest,
    build_manifest,
)
from bench.environment.wheelhouse import StoredDistribution, Target, Wheelhouse, cache_root, materialise
from bench.errors import EnvironmentBuildError
from bench.sandbox.protocol import Mount

log = logging.getLogger(__name__)

INTERPRETER = IMAGE_PYTHON
ENV_MOUNT = "/env"
SANDBOX_VENV = f"{ENV_MOUNT}/venv"
SANDBOX_WHEELHOUSE = "/wheelhouse"
OVERLAY_MOUNT = "/overlay"
OVERLAY_VENV = f"{OVERLAY_MOUNT}/venv"
ENV_RECORD = "environment.json"  # written last inside a build: its presence marks a complete entry
_KEY_VERSION = "env-key-v1"

_counts = {"built": 0, "reused": 0, "copied": 0}
_counts_lock = threading.Lock()


def env_key(image_digest: str, lock_sha256: str, interpreter: str = INTERPRETER) -> str:
    """sha256 over the three inputs that decide what a venv contains."""
    material = "\n".join((_KEY_VERSION, image_digest, lock_sha256, interpreter))
    return hashlib.sha256(material.encode("utf-8")).hexdigest()


def build_count() -> int:
    """How many venvs this process has built (not reused) so far."""
    with _counts_lock:
        return _counts["built"]


def copy_count() -> int:
    """How many venvs this process made by copying one with the same requirements (:mod:`venv_reuse`)."""
    with _counts_lock:
        return _counts["copied"]


def reuse_count() -> int:
    with _counts_lock:
        return _counts["reused"]


@dataclass(frozen=True)
class Environment:
    env_key: str
    venv_path: Path  # host path of the venv; inside the sandbox it is /env/venv
    manifest: Manifest
    root: Path  # host dir bound at /env
    context: StepContext
    reused: bool

    @property
    def python(self) -> str:
        return f"{SANDBOX_VENV}/bin/python"

    @property
    def image_root(self) -> Path:
        return self.context.image_root

    @property
    def image_digest(self) -> str:
        return self.context.image_digest

    @property
    def sandbox_name(self) -> str:
        return self.context.sandbox_name

    @property
    def mounts(self) -> tuple[Mount, ...]:
        return (Mount(self.root, ENV_MOUNT),)

    @property
    def site_packages(self) -> str:
        return f"{SANDBOX_VENV}/{self.manifest.interpreter.site_packages}"


def ensure_venv(
    lock,
    image,
    sandbox_name: str = "bwrap",
    *,
    cache_dir: Path | None = None,
    allow_sdist_builds: bool = True,
) -> Environment:
    """The cached venv for ``lock`` (a Lock, LockResult or lock file path) on ``image``, built if missing.

    ``image`` is an Image (or an already prepared StepContext). ``allow_sdist_builds=False`` refuses locks
    that pin only an sdist for some requirement (the tool locks must be all wheels).
    """
    lock = as_lock(lock)
    context = image if isinstance(image, StepContext) else context_for(image, sandbox_name)
    base = Path(cache_dir) if cache_dir is not None else cache_root()
    key = env_key(context.image_digest, lock.sha256)
    final = base / "venvs" / key
    with _key_lock(base / "venvs", key):
        reused = (final / ENV_RECORD).is_file()
        made = "reused" if reused else _make(lock, context, base, final, key, allow_sdist_builds)
    with _counts_lock:
        _counts[made] += 1
    return Environment(key, final / "venv", _load_manifest(final, context, lock, key), final, context, reused)


def _make(lock: Lock, context: StepContext, base: Path, final: Path, key: str, allow_sdists: bool) -> str:
    """Build the venv, or copy a cached one installing the same requirements (:mod:`venv_reuse`); which."""
    from bench.environment import venv_reuse

    started = time.monotonic()
    venvs = base / "venvs"
    same = venv_reuse.requirements_key(context.image_digest, lock, INTERPRETER, allow_sdists,
                                       _sdist_builder_sha() if allow_sdists else "")
    source = venv_reuse.donor(venvs, same, ENV_RECORD)
    if source is not None and venv_reuse.copy_entry(source, final, lock):
        log.info("venv %s copied from %s in %.1f s", key[:12], source.name[:12], time.monotonic() - started)
        return "copied"
    _build(lock, context, base, final, key, allow_sdists)
    venv_reuse.remember(venvs, same, key)
    log.info("venv %s built in %.1f s", key[:12], time.monotonic() - started)
    return "built"


def _sdist_builder_sha() -> str:
    from bench.environment.lock import checkout_path
    from bench.environment.sdist_build import SDIST_BUILD_LOCK

    try:
        return hashlib.sha256(checkout_path(SDIST_BUILD_LOCK).read_bytes()).hexdigest()
    except OSError:
        return "unreadable"


def _key_lock(folder: Path, key: str):
    """One builder per key across processes; the others wait and then reuse."""
    from bench.store.locks import file_lock

    return file_lock(folder / f".{key}.lock")


@profile.timed("venv")
def _build(lock: Lock, context: StepContext, base: Path, final: Path, key: str, allow_sdists: bool) -> None:
    final.parent.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=f".build-{key[:12]}-", dir=final.parent))
    try:
        info = probe_interpreter(context, scratch)
        stored = _fetch(lock, context, base, info, allow_sdists)
        links = materialise(stored, scratch / "links")
        root = world_writable_dir(scratch / "env")
        (root / "lock.txt").write_text(lock.text, encoding="utf-8")
        (root / "install.txt").write_text(_install_requirements(stored), encoding="utf-8")
        _install(context, scratch, root, links, base)
        record = _query(context, scratch, root, stored)
        (root / ENV_RECORD).write_text(json.dumps(record, sort_keys=True, indent=1), encoding="utf-8")
        os.chmod(root, 0o755)
        try:
            os.rename(root, final)
        except OSError:
            if not (final / ENV_RECORD).is_file():
                raise
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _fetch(lock: Lock, context: StepContext, base: Path, info: InterpreterInfo, allow_sdists: bool):
    wheelhouse = Wheelhouse(base / "wheelhouse")
    builder = None
    if allow_sdists:
        from bench.environment.sdist_build import sdist_builder

        builder = sdist_builder(context, wheelhouse, cache_dir=base)
    try:
        return wheelhouse.ensure(lock, Target.for_interpreter(info), build_sdist=builder)
    finally:
        wheelhouse.close()


def _install_requirements(stored: tuple[StoredDistribution, ...]) -> str:
    """The lock narrowed to exactly the file chosen for each requirement (a built wheel has its own hash)."""
    lines = [_pip_tools.pinned_requirement(s.name, s.version, s.sha256, s.marker) for s in stored]
    return "".join(f"{line}\n" for line in lines)


def _install(context: StepContext, scratch: Path, root: Path, links: Path, base: Path) -> None:
    from bench.environment.venv_reuse import skeleton

    workdir = world_writable_dir(scratch / "work")
    mounts = (Mount(root, ENV_MOUNT, writable=True), Mount(links, SANDBOX_WHEELHOUSE))

    def create(where: Path) -> None:
        run_step(context, (IMAGE_PYTHON, "-m", "venv", SANDBOX_VENV), what="venv creation", workdir=workdir,
                 mounts=(Mount(world_writable_dir(where), ENV_MOUNT, writable=True),))

    # Copies, not links: the install below may replace files of the skeleton (a lock pinning pip).
    shutil.copytree(skeleton(base / "venvs", context.image_digest, IMAGE_PYTHON, create), root / "venv",
                    symlinks=True)
    install = (
        f"{SANDBOX_VENV}/bin/python", "-m", "pip", "install", "--no-index", "--find-links", SANDBOX_WHEELHOUSE,
        "--require-hashes", "--no-deps", "--only-binary", ":all:", "--no-cache-dir", "--no-warn-script-location",
        "-r", f"{ENV_MOUNT}/install.txt",
    )
    run_step(context, install, what="offline install of the lock", workdir=workdir, mounts=mounts)


def _query(context: StepContext, scratch: Path, root: Path, stored) -> dict:
    """What the venv reports about itself, plus which wheel each distribution came from."""
    workdir = world_writable_dir(scratch / "query")
    mounts = (Mount(root, ENV_MOUNT),)
    python = f"{SANDBOX_VENV}/bin/python"
    interpreter = run_step(context, (python, "-I", "-c", INTERPRETER_QUERY), what="interpreter query",
                           workdir=workdir, mounts=mounts)
    installed = run_step(context, (python, "-I", "-c", DISTRIBUTIONS_QUERY), what="distribution query",
                         workdir=workdir, mounts=mounts)
    try:
        return {
            "interpreter": json.loads(interpreter.stdout),
            "installed": json.loads(installed.stdout),
            "wheels": {s.name: [s.filename, s.sha256, s.origin] for s in stored},
        }
    except ValueError as error:
        raise EnvironmentBuildError(f"venv query printed no usable JSON: {error}") from error


def _load_manifest(final: Path, context: StepContext, lock: Lock, key: str) -> Manifest:
    try:
        record = json.loads((final / ENV_RECORD).read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise EnvironmentBuildError(f"cached venv {final} has no readable {ENV_RECORD}: {error}") from error
    return build_manifest(
        image_digest=context.image_digest,
        lock_sha256=lock.sha256,
        env_key=key,
        interpreter=InterpreterInfo.from_json(record["interpreter"]),
        installed=tuple(record["installed"]),
        wheels={name: tuple(value) for name, value in record["wheels"].items()},
    )


# --- per run: the repository under test on top of the shared venv ------------------------------------------


@dataclass(frozen=True)
class RunEnv:
    """How to run Python for one workspace in the sandbox: extra mounts, environment, interpreter path."""

    mounts: tuple[Mount, ...]
    env: tuple[tuple[str, str], ...]
    python: str
    mode: str  # "editable" (installed into the overlay) | "path" (on PYTHONPATH, no build step)

    def argv(self, *args: str) -> tuple[str, ...]:
        return (self.python, *args)


def is_buildable(repo: Path) -> bool:
    """Whether the repository declares a build (so it can be installed), as opposed to loose modules."""
    if (repo / "setup.py").is_file() or (repo / "setup.cfg").is_file():
        return True
    pyproject = repo / "pyproject.toml"
    if not pyproject.is_file():
        return False
    import tomllib

    try:
        data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError):
        return True  # let the build backend report what is wrong with it
    return bool(data.get("build-system") or data.get("project"))


def prepare_workspace_env(workspace: Path, environment: Environment, *, overlay_dir: Path | None = None) -> RunEnv:
    """Make ``workspace`` (the checkout, bound at /work) importable on top of ``environment``'s venv.

    The overlay venv is created afresh at ``overlay_dir`` (default: a sibling ``<workspace>.overlay``); the
    returned mounts bind the shared venv and the overlay read-only. Run tests with an ExecRequest of
    ``workdir=workspace, image_root=environment.image_root, mounts=run_env.mounts``, ``run_env.env`` merged
    into the caller's environment and ``argv=run_env.argv("-m", "pytest", …)``; the RunEnv stays valid for
    any number of runs of this workspace (edits to its files need no reinstall: the install is editable).
    """
    workspace = Path(workspace)
    overlay = Path(overlay_dir) if overlay_dir is not None else workspace.with_name(f"{workspace.name}.overlay")
    interpreter = environment.manifest.interpreter
    _write_overlay_venv(overlay, interpreter, environment.site_packages)
    base_env = (
        ("PATH", f"{OVERLAY_VENV}/bin:{SANDBOX_VENV}/bin:/usr/bin:/bin"),
        ("VIRTUAL_ENV", OVERLAY_VENV),
        ("PYTHONNOUSERSITE", "1"),
        ("PYTHONDONTWRITEBYTECODE", "1"),
    )
    mode = "editable" if is_buildable(workspace) else "path"
    if mode == "editable":
        _install_editable(workspace, overlay, environment, base_env)
    env = base_env
    if mode == "path":
        roots = ["/work/src", "/work"] if (workspace / "src").is_dir() else ["/work"]
        env = (*env, ("PYTHONPATH", ":".join(roots)))
    os.chmod(overlay, 0o755)
    mounts = (*environment.mounts, Mount(overlay, OVERLAY_MOUNT))
    return RunEnv(mounts=mounts, env=env, python=f"{OVERLAY_VENV}/bin/python", mode=mode)


def _write_overlay_venv(overlay: Path, interpreter: InterpreterInfo, shared_site_packages: str) -> None:
    """A venv made of plain files (no interpreter runs on the host): pyvenv.cfg, symlinks, one .pth."""
    if overlay.exists():
        shutil.rmtree(overlay)
    venv = overlay / "venv"
    site = venv / interpreter.site_packages
    site.mkdir(parents=True)
    (venv / "bin").mkdir()
    major, minor = interpreter.version_info
    (venv / "pyvenv.cfg").write_text(
        "home = /usr/bin\ninclude-system-site-packages = false\n"
        f"version = {interpreter.version}\nexecutable = /usr/bin/python{major}.{minor}\n"
        f"command = {IMAGE_PYTHON} -m venv {OVERLAY_VENV}\n",
        encoding="utf-8",
    )
    os.symlink(IMAGE_PYTHON, venv / "bin" / "python")
    for alias in ("python3", f"python{major}.{minor}"):
        os.symlink("python", venv / "bin" / alias)
    os.symlink("lib", venv / "lib64")
    # addsitedir (not a bare path line) so the shared venv's own .pth files are processed too.
    (site / "zzz_bench_shared_venv.pth").write_text(
        f"import site; site.addsitedir({shared_site_packages!r})\n", encoding="utf-8"
    )
    for folder in (overlay, venv, site.parent.parent, site.parent, site, venv / "bin"):
        os.chmod(folder, 0o777)  # the sandbox's unprivileged user installs the repo into it


def _install_editable(workspace: Path, overlay: Path, environment: Environment, env) -> None:
    argv = (
        f"{OVERLAY_VENV}/bin/python", "-m", "pip", "install", "--no-deps", "--no-index", "--no-build-isolation",
        "--no-cache-dir", "--no-warn-script-location", "--disable-pip-version-check", "-e", "/work",
    )
    mounts = (*environment.mounts, Mount(overlay, OVERLAY_MOUNT, writable=True))
    run_step(environment.context, argv, what=f"editable install of {workspace.name}", workdir=workspace,
             mounts=mounts, env=env)
