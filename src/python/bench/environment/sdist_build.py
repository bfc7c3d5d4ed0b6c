"""Turning an sdist the lock pins into a wheel, inside a network-less sandbox, never on the host.

Building runs the sdist's build backend, which is untrusted code. The builder venv comes from the committed
``lockfiles/tools/sdist-build.lock`` (common backends, all wheels), cached like any other venv; the build uses
it with ``--no-build-isolation`` because the sandbox has no network. Before building, the sdist's declared
build requirements are read on the host as data (``pyproject.toml`` from the archive, never executed) and
checked against the builder venv, so a missing backend is reported by name instead of as an import error.
The built wheel is stored under its own sha256; a small record maps (sdist hash, image, builder lock) to it.
"""

from __future__ import annotations

import hashlib
import json
import re
import tarfile
import tempfile
import zipfile
from pathlib import Path

from bench.environment._sandboxed import StepContext, run_step, world_readable_dir, world_writable_dir
from bench.environment.lock import atomic_write_text, checkout_path, load_lock
from bench.environment.wheelhouse import Wheelhouse, file_sha256
from bench.errors import EnvironmentBuildError
from bench.sandbox.protocol import Mount

SDIST_BUILD_LOCK = "lockfiles/tools/sdist-build.lock"
DEFAULT_BUILD_REQUIRES = ("setuptools>=40.8.0",)
_MAX_PYPROJECT_BYTES = 1 << 20


def sdist_builder(context: StepContext, wheelhouse: Wheelhouse, *, cache_dir: Path | None = None):
    """A callable stored-sdist → stored-wheel for :meth:`Wheelhouse.ensure`."""

    def build(sdist: Path) -> Path:
        return build_sdist_wheel(sdist, context=context, wheelhouse=wheelhouse, cache_dir=cache_dir)

    return build


def build_sdist_wheel(sdist: Path, *, context: StepContext, wheelhouse: Wheelhouse, cache_dir: Path | None = None,
                      builder_lock_path: Path | None = None) -> Path:
    """The wheel built from ``sdist`` (a file in the store) for this image, from the store if built before."""
    from bench.environment.venv import ensure_venv

    lock = load_lock(builder_lock_path or checkout_path(SDIST_BUILD_LOCK))
    sdist_sha = file_sha256(sdist)
    record = wheelhouse.root / "built" / sdist_sha / f"{_builder_key(context, lock.sha256)}.json"
    known = _known_build(wheelhouse, record)
    if known is not None:
        return known
    builder = ensure_venv(lock, context, context.sandbox_name, cache_dir=cache_dir, allow_sdist_builds=False)
    check_build_requires(sdist, {d.name.lower().replace("_", "-"): d.version for d in builder.manifest.distributions})
    with tempfile.TemporaryDirectory(prefix="bench-sdist-") as temp:
        work = world_writable_dir(Path(temp) / "work")
        source = world_readable_dir(Path(temp) / "sdist")
        local = source / sdist.name
        local.write_bytes(sdist.read_bytes())
        local.chmod(0o644)
        argv = (
            builder.python, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index",
            "--no-cache-dir", "--wheel-dir", "/work/out", f"/sdist/{sdist.name}",
        )
        run_step(context, argv, what=f"building {sdist.name} into a wheel", workdir=work,
                 mounts=(*builder.mounts, Mount(source, "/sdist")))
        wheels = sorted((work / "out").glob("*.whl"))
        if len(wheels) != 1:
            raise EnvironmentBuildError(f"building {sdist.name} produced {len(wheels)} wheels, expected one")
        stored = wheelhouse.add(wheels[0])
    atomic_write_text(record, json.dumps({"filename": stored.name, "sha256": stored.parent.name}, sort_keys=True))
    return stored


# run_step's failure message for the build step above: "building <sdist file> into a wheel failed (…)".
_FAILED_BUILD = re.compile(r"\bbuilding (\S+?)-\d\S*?\.(?:tar\.gz|tar\.bz2|tgz|zip) into a wheel failed")


def unbuildable_project(reason: str) -> str | None:
    """The (normalised) project whose pinned sdist could not be built into a wheel, read from an install
    failure's reason; None when the failure was something else."""
    from packaging.utils import canonicalize_name

    found = _FAILED_BUILD.search(reason)
    return canonicalize_name(found.group(1)) if found else None


def _builder_key(context: StepContext, builder_lock_sha: str) -> str:
    material = f"{context.image_digest}\n{builder_lock_sha}".encode()
    return hashlib.sha256(material).hexdigest()[:32]


def _known_build(wheelhouse: Wheelhouse, record: Path) -> Path | None:
    if not record.is_file():
        return None
    data = json.loads(record.read_text(encoding="utf-8"))
    path = wheelhouse.path_for(data["sha256"], data["filename"])
    return path if path.is_file() and file_sha256(path) == data["sha256"] else None


def declared_build_requires(sdist: Path) -> tuple[str, ...]:
    """``[build-system] requires`` of the sdist's top-level pyproject.toml, read as data (default setuptools)."""
    import tomllib

    raw = _read_top_level_member(sdist, "pyproject.toml")
    if raw is None:
        return DEFAULT_BUILD_REQUIRES
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (ValueError, UnicodeDecodeError) as error:
        raise EnvironmentBuildError(f"{sdist.name}: unreadable pyproject.toml: {error}") from error
    requires = data.get("build-system", {}).get("requires")
    return tuple(str(r) for r in requires) if isinstance(requires, list) else DEFAULT_BUILD_REQUIRES


def check_build_requires(sdist: Path, available: dict[str, str]) -> None:
    """Raise, naming them, if the builder venv cannot satisfy the sdist's declared build requirements."""
    from packaging.requirements import InvalidRequirement, Requirement

    missing = []
    for text in declared_build_requires(sdist):
        try:
            requirement = Requirement(text)
        except InvalidRequirement:
            missing.append(text)
            continue
        if requirement.marker is not None:
            continue  # conditional on the target interpreter: left to the build itself to need
        version = available.get(requirement.name.lower().replace("_", "-").replace(".", "-"))
        if version is None or not requirement.specifier.contains(version, prereleases=True):
            missing.append(text)
    if missing:
        raise EnvironmentBuildError(
            f"{sdist.name} needs build requirements the offline builder lacks: {', '.join(missing)} "
            f"(add them to {SDIST_BUILD_LOCK})"
        )


def _read_top_level_member(archive: Path, name: str) -> bytes | None:
    """The bytes of ``<top dir>/<name>`` inside an sdist (tar or zip), without extracting anything else."""
    if archive.name.endswith(".zip"):
        with zipfile.ZipFile(archive) as handle:
            for info in handle.infolist():
                if _is_top_level(info.filename, name) and info.file_size <= _MAX_PYPROJECT_BYTES:
                    return handle.read(info)
        return None
    with tarfile.open(archive) as handle:
        for member in handle:
            if member.isfile() and _is_top_level(member.name, name) and member.size <= _MAX_PYPROJECT_BYTES:
                extracted = handle.extractfile(member)
                return extracted.read() if extracted is not None else None
    return None


def _is_top_level(path: str, name: str) -> bool:
    parts = path.strip("./").split("/")
    return len(parts) == 2 and parts[1] == name
