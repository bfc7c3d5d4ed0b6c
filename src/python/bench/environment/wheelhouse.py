"""A content-addressed store of distribution files, filled only with files whose sha256 a lock names.

Layout: ``$BENCH_CACHE_DIR/wheelhouse/sha256/<hex>/<filename>``. The host fetches files by URL from the
package index's JSON API (PEP 691) and keeps a file only if its sha256 is the one the lock pins; it never
runs anything it downloads. For each locked requirement it prefers a wheel that fits the target interpreter
(most specific tag first); when the lock pins only an sdist, the sdist is fetched the same way and handed to
a builder that turns it into a wheel inside a network-less sandbox (``bench.environment.sdist_build``); the
built wheel is stored under its own hash. :func:`materialise` lays one lock's chosen files out as a flat
find-links directory of hard links.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import tempfile
import threading
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Callable

from bench.environment.manifest import InterpreterInfo
from bench.errors import EnvironmentBuildError
from bench.store.canonical import file_sha256

PYPI_SIMPLE = "https://pypi.org/simple"
SIMPLE_JSON = "application/vnd.pypi.simple.v1+json"
SYSTEM_CA_BUNDLE = Path("/etc/ssl/certs/ca-certificates.crt")
_FILENAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._+!-]*$")
_SDIST_SUFFIXES = (".tar.gz", ".zip", ".tar.bz2", ".tgz")
_DOWNLOAD_ATTEMPTS = 3


def cache_root() -> Path:
    """``$BENCH_CACHE_DIR`` (default ``~/.cache/loopcontrolbench``)."""
    from bench.variables import cache_dir

    return cache_dir()


@dataclass(frozen=True)
class Target:
    """What the wheels must run on: tags in preference order and the marker environment."""

    tags: tuple[str, ...]
    markers: tuple[tuple[str, str], ...]

    @classmethod
    def for_interpreter(cls, info: InterpreterInfo) -> Target:
        return cls(tags=_tags_for(info), markers=_markers_for(info))

    def rank(self, wheel_filename: str) -> int | None:
        """Position of the wheel's best tag in :attr:`tags` (lower is better); None if it does not fit."""
        from packaging.utils import InvalidWheelFilename, parse_wheel_filename

        try:
            _, _, _, tags = parse_wheel_filename(wheel_filename)
        except InvalidWheelFilename:
            return None
        positions = [self._positions.get(str(tag)) for tag in tags]
        found = [p for p in positions if p is not None]
        return min(found) if found else None

    @cached_property
    def _positions(self) -> dict[str, int]:
        return {tag: index for index, tag in reversed(list(enumerate(self.tags)))}

    def marker_holds(self, marker: str) -> bool:
        if not marker:
            return True
        from packaging.markers import Marker

        return Marker(marker).evaluate(dict(self.markers))


def _manylinux_platforms(machine: str, libc: str, libc_version: str) -> list[str]:
    legacy = {(2, 17): "manylinux2014", (2, 12): "manylinux2010", (2, 5): "manylinux1"}
    platforms = []
    if libc == "glibc" and libc_version:
        major, minor = (int(part) for part in libc_version.split(".")[:2])
        for glibc_minor in range(minor, 4, -1):
            platforms.append(f"manylinux_{major}_{glibc_minor}_{machine}")
            if (major, glibc_minor) in legacy:
                platforms.append(f"{legacy[(major, glibc_minor)]}_{machine}")
    return [*platforms, f"linux_{machine}"]


def _tags_for(info: InterpreterInfo) -> tuple[str, ...]:
    from packaging import tags

    if info.implementation != "cpython":
        raise EnvironmentBuildError(f"only CPython targets are supported, not {info.implementation}")
    version = info.version_info
    abi = f"cp{version[0]}{version[1]}"
    platforms = _manylinux_platforms(info.machine, info.libc, info.libc_version)
    ordered = [*tags.cpython_tags(version, [abi], platforms), *tags.compatible_tags(version, abi, platforms)]
    return tuple(dict.fromkeys(str(tag) for tag in ordered))


def _markers_for(info: InterpreterInfo) -> tuple[tuple[str, str], ...]:
    major, minor = info.version_info
    return (
        ("implementation_name", info.implementation),
        ("implementation_version", info.version),
        ("os_name", "posix"),
        ("platform_machine", info.machine),
        ("platform_python_implementation", "CPython"),
        ("platform_release", ""),
        ("platform_system", "Linux"),
        ("platform_version", ""),
        ("python_full_version", info.version),
        ("python_version", f"{major}.{minor}"),
        ("sys_platform", "linux"),
    )


@dataclass(frozen=True)
class IndexFile:
    filename: str
    url: str
    sha256: str

    @property
    def is_wheel(self) -> bool:
        return self.filename.endswith(".whl")

    @property
    def is_sdist(self) -> bool:
        return self.filename.endswith(_SDIST_SUFFIXES)


@dataclass(frozen=True)
class StoredDistribution:
    """One locked requirement and the file in the store that will be installed for it."""

    name: str
    version: str
    marker: str
    filename: str
    sha256: str
    path: Path
    origin: str  # "lock" (the file the lock pins) | "built-from-sdist:<sdist sha256>"


SdistBuilder = Callable[[Path], Path]  # stored sdist → stored wheel built from it


class Wheelhouse:
    """The content-addressed store plus an index client (PEP 691 JSON) to fill it."""

    def __init__(self, root: Path | None = None, *, index_url: str = PYPI_SIMPLE) -> None:
        self.root = Path(root) if root is not None else cache_root() / "wheelhouse"
        self.index_url = index_url.rstrip("/")
        self._listings: dict[str, tuple[IndexFile, ...]] = {}
        self._lock = threading.Lock()
        self._client = None

    # --- the store ---

    def path_for(self, sha256: str, filename: str) -> Path:
        if not re.fullmatch(r"[0-9a-f]{64}", sha256) or not _FILENAME_RE.match(filename):
            raise EnvironmentBuildError(f"refusing odd store key {sha256!r} / {filename!r}")
        return self.root / "sha256" / sha256 / filename

    def has(self, sha256: str, filename: str) -> bool:
        return self.path_for(sha256, filename).is_file()

    def add(self, source: Path, *, expected_sha256: str | None = None, filename: str | None = None) -> Path:
        """Copy a local file into the store under its hash (checked against ``expected_sha256`` if given)."""
        digest = file_sha256(source)
        if expected_sha256 is not None and digest != expected_sha256:
            raise EnvironmentBuildError(f"{source.name}: sha256 {digest} is not the expected {expected_sha256}")
        target = self.path_for(digest, filename or source.name)
        if not target.is_file():
            target.parent.mkdir(parents=True, exist_ok=True)
            handle, temp = tempfile.mkstemp(dir=target.parent, prefix=".part-")
            os.close(handle)
            shutil.copyfile(source, temp)
            os.chmod(temp, 0o644)
            os.replace(temp, target)
        return target

    def fetch(self, url: str, sha256: str, filename: str) -> Path:
        """Download ``url`` into the store; keep it only if its sha256 is ``sha256``."""
        target = self.path_for(sha256, filename)
        if target.is_file():
            return target
        target.parent.mkdir(parents=True, exist_ok=True)
        last_error: Exception | None = None
        for _ in range(_DOWNLOAD_ATTEMPTS):
            try:
                return self._download(url, sha256, target)
            except OSError as error:  # httpx transport errors are OSError-like; retried
                last_error = error
            except _transport_errors() as error:
                last_error = error
        raise EnvironmentBuildError(f"could not download {url}: {last_error}")

    def _download(self, url: str, sha256: str, target: Path) -> Path:
        handle, temp = tempfile.mkstemp(dir=target.parent, prefix=".part-")
        digest = hashlib.sha256()
        try:
            with os.fdopen(handle, "wb") as out, self.client.stream("GET", url) as response:
                if response.status_code != 200:
                    raise EnvironmentBuildError(f"GET {url}: HTTP {response.status_code}")
                for chunk in response.iter_bytes(1 << 16):
                    digest.update(chunk)
                    out.write(chunk)
            if digest.hexdigest() != sha256:
                raise EnvironmentBuildError(
                    f"hash mismatch for {target.name}: downloaded sha256 {digest.hexdigest()}, lock pins {sha256}"
                )
            os.chmod(temp, 0o644)
            os.replace(temp, target)
            return target
        finally:
            if os.path.exists(temp):
                os.unlink(temp)

    # --- the index ---

    @property
    def client(self):
        import ssl

        import httpx

        with self._lock:
            if self._client is None:
                # TLS to the index may be intercepted: trust the system's bundle, not a vendored one.
                cafile = str(SYSTEM_CA_BUNDLE) if SYSTEM_CA_BUNDLE.is_file() else None
                verify = ssl.create_default_context(cafile=cafile)
                self._client = httpx.Client(verify=verify, timeout=120.0, follow_redirects=True)
            return self._client

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None

    def page(self, name: str) -> dict:
        """Project ``name``'s page of the index (PEP 691 JSON), read now."""
        from bench.spec.model import normalise_name

        url = f"{self.index_url}/{normalise_name(name)}/"
        try:
            response = self.client.get(url, headers={"Accept": SIMPLE_JSON})
        except _transport_errors() as error:
            raise EnvironmentBuildError(f"GET {url}: {error}") from error
        if response.status_code != 200:
            raise EnvironmentBuildError(f"GET {url}: HTTP {response.status_code}")
        return response.json()

    def listing(self, name: str) -> tuple[IndexFile, ...]:
        """Every file the index lists for project ``name`` that carries a sha256."""
        from bench.spec.model import normalise_name

        key = normalise_name(name)
        if key not in self._listings:
            files = self.page(key).get("files", [])
            self._listings[key] = tuple(
                IndexFile(f["filename"], f["url"], f["hashes"]["sha256"].lower())
                for f in files
                if f.get("hashes", {}).get("sha256")
            )
        return self._listings[key]

    def choose(self, name: str, version: str, hashes: tuple[str, ...], target: Target) -> IndexFile:
        """The best file among those the lock pins: a fitting wheel (best tag first), else the sdist."""
        pinned = [f for f in self.listing(name) if f.sha256 in hashes]
        if not pinned:
            raise EnvironmentBuildError(
                f"{name}=={version}: no file on the index has one of the lock's hashes (hash mismatch refused)"
            )
        wheels = [(target.rank(f.filename), f.filename, f) for f in pinned if f.is_wheel]
        fitting = sorted((rank, filename, f) for rank, filename, f in wheels if rank is not None)
        if fitting:
            return fitting[0][2]
        sdists = sorted((f for f in pinned if f.is_sdist), key=lambda f: f.filename)
        if sdists:
            return sdists[0]
        raise EnvironmentBuildError(f"{name}=={version}: no pinned file fits the target interpreter")

    # --- a whole lock ---

    def ensure(
        self, lock, target: Target, *, build_sdist: SdistBuilder | None = None
    ) -> tuple[StoredDistribution, ...]:
        """Fetch (and build, for sdist-only pins) one file per requirement of ``lock`` that applies here."""
        stored = []
        for requirement in lock.requirements:
            if not target.marker_holds(requirement.marker):
                continue
            chosen = self.choose(requirement.name, requirement.version, requirement.hashes, target)
            path = self.fetch(chosen.url, chosen.sha256, chosen.filename)
            origin, sha256 = "lock", chosen.sha256
            if not chosen.is_wheel:
                if build_sdist is None:
                    raise EnvironmentBuildError(f"{chosen.filename}: only an sdist is pinned and no builder given")
                path = build_sdist(path)
                origin, sha256 = f"built-from-sdist:{chosen.sha256}", path.parent.name
            stored.append(
                StoredDistribution(
                    requirement.name, requirement.version, requirement.marker, path.name, sha256, path, origin
                )
            )
        return tuple(stored)


def materialise(distributions: tuple[StoredDistribution, ...], dest: Path) -> Path:
    """A flat find-links dir holding exactly ``distributions`` (hard links; copies across filesystems)."""
    dest.mkdir(parents=True, exist_ok=True)
    os.chmod(dest, 0o755)
    for distribution in distributions:
        if file_sha256(distribution.path) != distribution.sha256:
            raise EnvironmentBuildError(f"store file {distribution.path} no longer matches its hash")
        link = dest / distribution.filename
        if link.exists():
            link.unlink()
        try:
            os.link(distribution.path, link)
        except OSError:
            shutil.copyfile(distribution.path, link)
            os.chmod(link, 0o644)
    return dest



def _transport_errors() -> tuple[type[BaseException], ...]:
    import httpx

    return (httpx.TransportError,)
