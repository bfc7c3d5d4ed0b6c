"""Scoring images: a Debian rootfs tar built by mmdebstrap from a recipe, identified by its sha256.

``images/<name>/recipe.json`` says what goes in; ``images/<name>/digest`` (``sha256:<hex>``) and
``images/<name>/manifest.txt`` (``package=version`` lines) pin what came out. A build whose digest differs from
the pin means the environment changed, and :class:`ImageError` says which packages did. Tars are cached
content-addressed as ``$BENCH_CACHE_DIR/images/<hex>.tar`` (the docker backend imports the same file) and
unpacked once to ``images/rootfs/<hex>/`` for bwrap.
"""

from __future__ import annotations


import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

from bench import profile
from bench.environment import _mmdebstrap
from bench.errors import ImageError
from bench.sandbox.image_store import images_cache
from bench.store.atomic import write_atomic
from bench.store.locks import file_lock

RECIPE_FILE = "recipe.json"
DIGEST_FILE = "digest"
MANIFEST_FILE = "manifest.txt"
_RECIPE_KEYS = {"suite": str, "variant": str, "mirror": str, "architecture": str, "include": list,
                "source_date_epoch": int}


@dataclass(frozen=True)
class Recipe:
    suite: str
    variant: str
    mirror: str
    architecture: str
    include: tuple[str, ...]
    source_date_epoch: int
    description: str = ""


@dataclass(frozen=True)
class Image:
    name: str
    recipe_sha256: str
    digest: str  # "sha256:<hex>" of the rootfs tar
    tar_path: Path
    manifest: tuple[str, ...]  # sorted "package=version"

    @property
    def digest_hex(self) -> str:
        return self.digest.removeprefix("sha256:")


@dataclass(frozen=True)
class ManifestDiff:
    added: tuple[str, ...]  # "pkg=version"
    removed: tuple[str, ...]  # "pkg=version"
    changed: tuple[tuple[str, str, str], ...]  # (pkg, old version, new version)

    @property
    def empty(self) -> bool:
        return not (self.added or self.removed or self.changed)

    def describe(self) -> str:
        if self.empty:
            return "same packages and versions"
        parts = [f"{pkg} {old} -> {new}" for pkg, old, new in self.changed]
        parts += [f"+{entry}" for entry in self.added] + [f"-{entry}" for entry in self.removed]
        return f"{len(self.changed)} changed, {len(self.added)} added, {len(self.removed)} removed: " + \
            ", ".join(parts)


def diff_manifests(old: tuple[str, ...], new: tuple[str, ...]) -> ManifestDiff:
    before, after = _as_versions(old), _as_versions(new)
    return ManifestDiff(
        added=tuple(f"{p}={after[p]}" for p in sorted(after.keys() - before.keys())),
        removed=tuple(f"{p}={before[p]}" for p in sorted(before.keys() - after.keys())),
        changed=tuple((p, before[p], after[p]) for p in sorted(before.keys() & after.keys())
                      if before[p] != after[p]),
    )


def _as_versions(manifest: tuple[str, ...]) -> dict[str, str]:
    return dict(line.split("=", 1) for line in manifest if "=" in line)


# --- locations ----------------------------------------------------------------------------------------------


def image_folder(name: str, root: Path | None = None) -> Path:
    if root is None:
        from bench.variables import find_root

        root = find_root()
    folder = Path(root) / "images" / name
    if not (folder / RECIPE_FILE).is_file():
        raise ImageError(f"unknown image {name!r}: no {folder / RECIPE_FILE}")
    return folder


def load_recipe(folder: Path) -> tuple[Recipe, str]:
    """The recipe and the sha256 of its file's bytes."""
    raw = (folder / RECIPE_FILE).read_bytes()
    try:
        data = json.loads(raw)
    except ValueError as exc:
        raise ImageError(f"{folder / RECIPE_FILE}: not JSON: {exc}") from None
    for key, kind in _RECIPE_KEYS.items():
        if not isinstance(data.get(key), kind) or isinstance(data.get(key), bool):
            raise ImageError(f"{folder / RECIPE_FILE}: {key!r} must be a {kind.__name__}")
    recipe = Recipe(data["suite"], data["variant"], data["mirror"], data["architecture"],
                    tuple(str(p) for p in data["include"]), data["source_date_epoch"],
                    str(data.get("description", "")))
    return recipe, hashlib.sha256(raw).hexdigest()


def read_pin(folder: Path) -> tuple[str | None, tuple[str, ...] | None]:
    digest_file, manifest_file = folder / DIGEST_FILE, folder / MANIFEST_FILE
    digest = digest_file.read_text().strip() if digest_file.is_file() else None
    manifest = tuple(manifest_file.read_text().splitlines()) if manifest_file.is_file() else None
    return digest, manifest


def write_pin(folder: Path, digest: str, manifest: tuple[str, ...]) -> None:
    write_atomic(folder / DIGEST_FILE, f"{digest}\n".encode())
    write_atomic(folder / MANIFEST_FILE, "".join(f"{line}\n" for line in manifest).encode())


# --- build --------------------------------------------------------------------------------------------------


def build_image(name: str, *, update: bool = False, rebuild: bool = False, reuse_only: bool = False,
                root: Path | None = None, cache_dir: Path | None = None) -> Image:
    """The image ``name``, checked against its pin.

    A cached tar with the pinned digest is reused (after checking its sha256) unless ``rebuild`` or
    ``update``. ``update`` builds afresh and re-pins digest and manifest; otherwise a build whose digest
    differs from the pin raises :class:`ImageError` naming the package changes. ``reuse_only`` never builds.
    """
    folder = image_folder(name, root)
    recipe, recipe_sha = load_recipe(folder)
    pinned_digest, pinned_manifest = read_pin(folder)
    cache = images_cache(cache_dir)
    cached = None if update or rebuild else _cached_image(name, recipe_sha, pinned_digest, cache)
    if cached is not None:
        return cached
    if reuse_only:
        raise ImageError(f"image {name} ({pinned_digest or 'unpinned'}) is not in the cache {cache}; "
                         f"build it with `bench image build {name}`")
    with _build_lock(cache, name):  # parallel callers wait for one build instead of each running mmdebstrap
        cached = None if update or rebuild else _cached_image(name, recipe_sha, pinned_digest, cache)
        if cached is not None:
            return cached
        print(f"bench: building image {name} with mmdebstrap (takes a minute or two)", file=sys.stderr)
        digest, tar, manifest = _build(recipe, cache)
    if update:
        write_pin(folder, digest, manifest)
        print(f"bench: pinned {name} at {digest}", file=sys.stderr)
    elif pinned_digest is None:
        raise ImageError(f"image {name} has no pinned digest (built {digest}); "
                         f"pin it with `bench image build {name} --update`")
    elif digest != pinned_digest:
        raise ImageError(_mismatch_message(name, pinned_digest, digest, pinned_manifest or (), manifest, tar))
    return Image(name, recipe_sha, digest, tar, manifest)


def _cached_image(name: str, recipe_sha: str, pinned_digest: str | None, cache: Path) -> Image | None:
    if not pinned_digest:
        return None
    tar = cache / f"{pinned_digest.removeprefix('sha256:')}.tar"
    if tar.is_file() and file_digest(tar) == pinned_digest:
        return Image(name, recipe_sha, pinned_digest, tar, _cached_manifest(tar))
    return None


def _build_lock(cache: Path, name: str):
    return file_lock(cache / f".build-{name}.lock")


def ensure_image(name: str, *, root: Path | None = None, cache_dir: Path | None = None) -> Image:
    """The pinned image from the cache, built (and checked against the pin) only when it is not cached."""
    return build_image(name, root=root, cache_dir=cache_dir)


def _mismatch_message(name, pinned, built, old_manifest, new_manifest, tar) -> str:
    diff = diff_manifests(old_manifest, new_manifest)
    what = diff.describe() if not diff.empty else \
        "same packages and versions, so file contents or metadata differ (the build is not reproducible)"
    return (f"image {name}: built {built} but {pinned} is pinned; packages: {what}. The new tar is {tar}. "
            f"If the change is intended, re-pin with `bench image build {name} --update` (certificates for "
            f"the old digest become stale).")


@profile.timed("image")
def _build(recipe: Recipe, cache: Path) -> tuple[str, Path, tuple[str, ...]]:
    from bench.sandbox.host_tools import ensure_tool

    ensure_tool("mmdebstrap", "mmdebstrap", ImageError)
    cache.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=".build-", dir=cache))
    try:
        tar, manifest_file, log = work / "rootfs.tar", work / "manifest.out", work / "mmdebstrap.log"
        argv = _mmdebstrap.build_argv(suite=recipe.suite, variant=recipe.variant, mirror=recipe.mirror,
                                      architecture=recipe.architecture, include=recipe.include,
                                      tar_path=tar, manifest_path=manifest_file)
        if _mmdebstrap.run(argv, _mmdebstrap.build_env(recipe.source_date_epoch), log) != 0:
            tail = " | ".join(log.read_text(errors="replace").strip().splitlines()[-5:])
            raise ImageError(f"mmdebstrap failed for {recipe.suite}/{recipe.variant}: {tail}")
        # "extract" only unpacks packages: nothing is installed, no hook runs, the manifest is empty.
        text = manifest_file.read_text() if manifest_file.is_file() else ""
        manifest = _mmdebstrap.parse_query_output(text)
        if not manifest and recipe.variant != "extract":
            raise ImageError("mmdebstrap produced no package list (customize hook did not run?)")
        digest = file_digest(tar)
        final = cache / f"{digest.removeprefix('sha256:')}.tar"
        write_atomic(final.with_suffix(".manifest"), "".join(f"{m}\n" for m in manifest).encode())
        os.chmod(tar, 0o644)
        os.replace(tar, final)
        return digest, final, manifest
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _cached_manifest(tar: Path) -> tuple[str, ...]:
    sidecar = tar.with_suffix(".manifest")
    if sidecar.is_file():
        return tuple(sidecar.read_text().splitlines())
    with tarfile.open(tar) as archive:  # streamed; the status file sits early in mmdebstrap's tars
        for member in archive:
            if member.name.lstrip("./") == "var/lib/dpkg/status":
                text = archive.extractfile(member).read().decode("utf-8", "replace")
                manifest = _mmdebstrap.parse_status_file(text)
                write_atomic(sidecar, "".join(f"{m}\n" for m in manifest).encode())
                return manifest
    raise ImageError(f"{tar} has no var/lib/dpkg/status: not a Debian rootfs")


# --- digests and unpacking ----------------------------------------------------------------------------------

_verified: dict[tuple[str, int, int], str] = {}
_verified_lock = threading.Lock()


def file_digest(path: Path) -> str:
    """``sha256:<hex>`` of a file; remembered per (path, size, mtime) within this process."""
    stat = path.stat()
    key = (str(path), stat.st_size, stat.st_mtime_ns)
    with _verified_lock:
        if key in _verified:
            return _verified[key]
    sha = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            sha.update(block)
    digest = f"sha256:{sha.hexdigest()}"
    with _verified_lock:
        _verified[key] = digest
    return digest


def unpack_image(image: Image, cache_dir: Path | None = None) -> Path:
    """The image's rootfs unpacked once under ``images/rootfs/<hex>/`` (readable by unprivileged uids)."""
    rootfs_parent = images_cache(cache_dir) / "rootfs"
    final = rootfs_parent / image.digest_hex
    if final.is_dir():
        return final
    rootfs_parent.mkdir(parents=True, exist_ok=True)
    os.chmod(rootfs_parent, 0o755)
    temp = Path(tempfile.mkdtemp(prefix=f".unpack-{image.digest_hex[:12]}-", dir=rootfs_parent))
    try:
        argv = ["tar", "-x", "-f", str(image.tar_path), "-C", str(temp), "--exclude=./dev/*"]
        if os.geteuid() == 0:
            argv += ["--numeric-owner", "--same-permissions"]
        done = subprocess.run(argv, capture_output=True, text=True)
        if done.returncode != 0:
            raise ImageError(f"unpacking {image.tar_path} failed: {done.stderr.strip()[-500:]}")
        os.chmod(temp, 0o755)  # mkdtemp made it 0700; the sandbox's uid must traverse it
        try:
            os.rename(temp, final)
        except OSError:
            if not final.is_dir():  # someone else finished first: theirs is as good as ours
                raise
    finally:
        if temp.exists():
            shutil.rmtree(temp, ignore_errors=True)
    return final


def suite_image(cache_dir: Path | None = None) -> tuple[Path, str]:
    """The image the sandbox suites (bench.sandbox.conformance) are written for, unpacked: (rootfs, digest).
    Built once if not cached."""
    from bench.sandbox.conformance import SUITE_IMAGE

    image = ensure_image(SUITE_IMAGE, cache_dir=cache_dir)
    return unpack_image(image, cache_dir=cache_dir), image.digest
