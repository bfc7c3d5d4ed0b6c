"""The sdist source: a released library from a package index, pinned by file name and sha256.

Nothing here runs the library's code. :func:`find_release` reads the index's JSON simple API (PEP 691), which
names every file of a release with its sha256; :func:`fetch_sdist` downloads the ``.tar.gz`` into a
content-addressed cache and refuses it unless the hash matches the pin; :func:`unpack_sdist` extracts it with
every member checked (no absolute paths, no ``..``, no links leaving the tree, no device files), stripping the
single top-level directory an sdist carries.

(``pip download`` of an sdist would run the package's build backend on the host; this module never does.)
"""

from __future__ import annotations

import os
import re
import shutil
import ssl
import tarfile
import tempfile
from pathlib import Path, PurePosixPath
from urllib.parse import urljoin

from bench.errors import SourceError
from bench.spec.model import SdistPin, normalise_name
from bench.store.canonical import file_sha256

DEFAULT_INDEX_URL = "https://pypi.org/simple"
SIMPLE_JSON = "application/vnd.pypi.simple.v1+json"
SYSTEM_CA_BUNDLE = Path("/etc/ssl/certs/ca-certificates.crt")
SDIST_SUFFIX = ".tar.gz"
_TIMEOUT_SECONDS = 60.0
_CHUNK = 1 << 16
# Far above any real sdist; a bound so a hostile archive cannot fill the disk.
MAX_UNPACKED_BYTES = 2 << 30
MAX_MEMBERS = 200_000


def cache_dir() -> Path:
    """Root of the harness's download cache (``$BENCH_CACHE_DIR``, default ``~/.cache/loopcontrolbench``)."""
    from bench.variables import cache_dir as configured_cache_dir

    return configured_cache_dir()


# --- index -----------------------------------------------------------------------------------------------


def _http_client():
    import httpx  # imported here: `import bench` stays light

    # TLS to the index may be intercepted by a proxy whose CA only the system bundle carries.
    verify: ssl.SSLContext | bool = True
    if SYSTEM_CA_BUNDLE.is_file():
        verify = ssl.create_default_context(cafile=str(SYSTEM_CA_BUNDLE))
    return httpx.Client(verify=verify, timeout=_TIMEOUT_SECONDS, follow_redirects=True)


def _project_files(name: str, index_url: str) -> tuple[str, list[dict]]:
    """(page URL, the files list) of one project's page in the JSON simple API."""
    import httpx

    page = f"{index_url.rstrip('/')}/{normalise_name(name)}/"
    try:
        with _http_client() as client:
            response = client.get(page, headers={"Accept": SIMPLE_JSON})
    except httpx.HTTPError as exc:
        raise SourceError(f"cannot reach the index at {page}: {exc}") from exc
    if response.status_code == 404:
        raise SourceError(f"no project {name!r} on {index_url}")
    if response.status_code != 200:
        raise SourceError(f"index answered HTTP {response.status_code} for {page}")
    if not response.headers.get("content-type", "").startswith(SIMPLE_JSON):
        raise SourceError(f"index at {page} did not answer in the JSON simple API")
    files = response.json().get("files", [])
    if not isinstance(files, list):
        raise SourceError(f"malformed files list at {page}")
    return str(response.url), files


def _is_sdist_of(filename: str, name: str, version: str) -> bool:
    if not filename.endswith(SDIST_SUFFIX):
        return False
    stem = filename[: -len(SDIST_SUFFIX)]
    project, sep, file_version = stem.rpartition("-")
    return bool(sep) and normalise_name(project) == normalise_name(name) and file_version == version


def _sdist_entry(files: list[dict], name: str, version: str, page: str) -> dict:
    matches = [entry for entry in files if _is_sdist_of(str(entry.get("filename", "")), name, version)]
    if not matches:
        raise SourceError(f"no {SDIST_SUFFIX} sdist of {name}=={version} at {page}")
    if len(matches) > 1:
        names = sorted(str(entry["filename"]) for entry in matches)
        raise SourceError(f"several sdists of {name}=={version} at {page}: {names}")
    return matches[0]


def find_release(name: str, version: str, *, index_url: str = DEFAULT_INDEX_URL) -> SdistPin:
    """Pin the ``.tar.gz`` sdist of ``name==version`` by file name and sha256, from the index's JSON."""
    page, files = _project_files(name, index_url)
    entry = _sdist_entry(files, name, version, page)
    sha256 = str(entry.get("hashes", {}).get("sha256", "")).lower()
    if not re.fullmatch(r"[0-9a-f]{64}", sha256):
        raise SourceError(f"index gives no sha256 for {entry['filename']}")
    return SdistPin(
        name=normalise_name(name),
        version=version,
        filename=str(entry["filename"]),
        sha256=sha256,
        index_url=index_url,
    )


def release_upload_time(pin: SdistPin) -> str:
    """When the pinned file was uploaded (the index's ``upload-time``, ISO 8601), or "" if it does not say."""
    page, files = _project_files(pin.name, pin.index_url)
    for entry in files:
        if entry.get("filename") == pin.filename:
            return str(entry.get("upload-time") or "")
    raise SourceError(f"{pin.filename} is no longer listed at {page}")


def released_sdists(name: str, *, index_url: str = DEFAULT_INDEX_URL) -> tuple[tuple[str, str], ...]:
    """Every final release of ``name`` with a ``.tar.gz`` sdist the index does not mark yanked, as (version,
    upload day), oldest upload first; a file without an upload time is left out (it cannot be dated)."""
    from packaging.version import InvalidVersion, Version

    from bench.spec.model import utc_day

    _, files = _project_files(name, index_url)
    found = {}
    for entry in files:
        filename, uploaded = str(entry.get("filename", "")), str(entry.get("upload-time") or "")
        if not filename.endswith(SDIST_SUFFIX) or entry.get("yanked") or not uploaded:
            continue
        version = filename[: -len(SDIST_SUFFIX)].rpartition("-")[2]
        try:
            parsed = Version(version)
        except InvalidVersion:
            continue
        if _is_sdist_of(filename, name, version) and not (parsed.is_prerelease or parsed.is_devrelease):
            found[version] = utc_day(uploaded)
    return tuple(sorted(found.items(), key=lambda item: (item[1], item[0])))


def _file_url(pin: SdistPin) -> str:
    page, files = _project_files(pin.name, pin.index_url)
    for entry in files:
        if entry.get("filename") == pin.filename:
            return urljoin(page, str(entry["url"]))
    raise SourceError(f"{pin.filename} is no longer listed at {page}")


# --- download --------------------------------------------------------------------------------------------


def cached_path(pin: SdistPin) -> Path:
    """Where the verified archive of ``pin`` lives in the cache (it may not exist yet)."""
    if not re.fullmatch(r"[0-9a-f]{64}", pin.sha256) or "/" in pin.filename or pin.filename in ("", ".", ".."):
        raise SourceError(f"malformed pin: {pin}")
    return cache_dir() / "sdists" / pin.sha256 / pin.filename


def _download(url: str, target: Path) -> None:
    import httpx

    try:
        with _http_client() as client, client.stream("GET", url) as response:
            if response.status_code != 200:
                raise SourceError(f"download of {url} answered HTTP {response.status_code}")
            with target.open("wb") as stream:
                for chunk in response.iter_bytes(_CHUNK):
                    stream.write(chunk)
    except httpx.HTTPError as exc:
        raise SourceError(f"download of {url} failed: {exc}") from exc


def fetch_sdist(pin: SdistPin) -> Path:
    """The verified archive of ``pin`` in the cache, downloading it first if needed.

    A file whose sha256 differs from the pin is refused (:class:`SourceError`) and removed, whether it came
    from the network or was found in the cache.
    """
    target = cached_path(pin)
    if target.is_file():
        if file_sha256(target) == pin.sha256:
            return target
        target.unlink()  # a corrupted cache entry: fetch again
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, temp_name = tempfile.mkstemp(dir=target.parent, prefix=".part-")
    os.close(handle)
    temp = Path(temp_name)
    try:
        _download(_file_url(pin), temp)
        actual = file_sha256(temp)
        if actual != pin.sha256:
            raise SourceError(f"sha256 mismatch for {pin.filename}: pinned {pin.sha256}, got {actual}")
        os.replace(temp, target)
    finally:
        temp.unlink(missing_ok=True)
        _remove_empty_dir(target.parent)
    return target


def _remove_empty_dir(path: Path) -> None:
    try:
        path.rmdir()
    except OSError:
        pass  # not empty (the archive is there) or already gone


# --- unpack ----------------------------------------------------------------------------------------------


def _relative_parts(member: tarfile.TarInfo) -> tuple[str, ...]:
    """The member's path below the archive's top directory; refuses anything that could leave it."""
    name = member.name
    if name.startswith("/") or "\\" in name or "\x00" in name:
        raise SourceError(f"unsafe path in sdist: {name!r}")
    parts = tuple(part for part in PurePosixPath(name).parts if part != ".")
    if not parts or ".." in parts:
        raise SourceError(f"unsafe path in sdist: {name!r}")
    return parts


def _link_parts(member: tarfile.TarInfo, rel: PurePosixPath, top: str) -> tuple[str, ...]:
    """Where a link points, as parts below the tree root, resolved lexically; refuses targets outside."""
    target = member.linkname
    if not target or target.startswith("/") or "\\" in target or "\x00" in target:
        raise SourceError(f"unsafe link in sdist: {member.name!r} -> {target!r}")
    link_parts = PurePosixPath(target).parts
    if member.islnk():
        # A hard link names another member from the archive root, without detours.
        if len(link_parts) < 2 or link_parts[0] != top or ".." in link_parts:
            raise SourceError(f"unsafe link in sdist: {member.name!r} -> {target!r}")
        return tuple(part for part in link_parts[1:] if part != ".")
    parts = list(rel.parent.parts) if str(rel.parent) != "." else []
    for part in link_parts:
        if part == "..":
            if not parts:
                raise SourceError(f"link leaves the sdist tree: {member.name!r} -> {target!r}")
            parts.pop()
        elif part != ".":
            parts.append(part)
    if not parts:
        raise SourceError(f"link to the sdist root: {member.name!r} -> {target!r}")
    return tuple(parts)


Plan = list[tuple[tarfile.TarInfo, PurePosixPath]]


def _plan(members: list[tarfile.TarInfo]) -> Plan:
    """Each member with its path below the single top directory; raises on the first unsafe member."""
    if len(members) > MAX_MEMBERS or sum(member.size for member in members if member.isfile()) > MAX_UNPACKED_BYTES:
        raise SourceError(f"sdist too large to unpack (over {MAX_MEMBERS} members or {MAX_UNPACKED_BYTES} bytes)")
    tops = {_relative_parts(member)[0] for member in members}
    if len(tops) != 1:
        raise SourceError(f"sdist must have exactly one top-level directory, found {sorted(tops)[:5]}")
    top = tops.pop()
    plan: Plan = []
    regular_files = set()
    for member in members:
        parts = _relative_parts(member)
        rel = PurePosixPath(*parts[1:]) if len(parts) > 1 else PurePosixPath(".")
        if not (member.isfile() or member.isdir() or member.issym() or member.islnk()):
            raise SourceError(f"unsupported member type in sdist (device, fifo, ...): {member.name!r}")
        if str(rel) == "." and not member.isdir():
            raise SourceError(f"sdist top-level entry is not a directory: {member.name!r}")
        if member.isfile():
            regular_files.add(rel.parts)
        elif member.islnk() and _link_parts(member, rel, top) not in regular_files:
            raise SourceError(f"hard link to no earlier regular file: {member.name!r} -> {member.linkname!r}")
        elif member.issym():
            _link_parts(member, rel, top)
        plan.append((member, rel))
    return plan


def _extract(archive: tarfile.TarFile, plan: Plan, root: Path) -> None:
    """Files and directories first, then hard links as copies, then symlinks (so none redirects a write)."""
    for member, rel in plan:
        target = root / rel
        if member.isdir():
            target.mkdir(parents=True, exist_ok=True)
        elif member.isfile():
            target.parent.mkdir(parents=True, exist_ok=True)
            source = archive.extractfile(member)
            assert source is not None  # regular members always have data
            with source, target.open("wb") as out:
                shutil.copyfileobj(source, out)
            target.chmod(0o755 if member.mode & 0o111 else 0o644)
    for member, rel in plan:
        if member.islnk():
            linked = root.joinpath(*PurePosixPath(member.linkname).parts[1:])
            shutil.copyfile(linked, root / rel, follow_symlinks=False)
    for member, rel in plan:
        if member.issym():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).symlink_to(member.linkname)
    _check_symlinks_stay_inside(root, plan)


def _check_symlinks_stay_inside(root: Path, plan: Plan) -> None:
    # Lexical checks cannot see through chains of links (a -> b/../.., b -> dir); the physical path can.
    real_root = os.path.realpath(root)
    for member, rel in plan:
        if member.issym():
            resolved = os.path.realpath(root / rel)
            if os.path.commonpath([real_root, resolved]) != real_root or resolved == real_root:
                raise SourceError(f"link leaves the sdist tree: {member.name!r} -> {member.linkname!r}")


def unpack_sdist(path: Path, dest: Path) -> Path:
    """Extract the sdist at ``path`` into ``dest`` (which must not exist), without its top directory.

    Every member is checked before anything is written; the tree appears at ``dest`` only when complete.
    Returns ``dest``.
    """
    dest = Path(dest)
    if dest.exists():
        raise SourceError(f"unpack destination already exists: {dest}")
    dest.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=dest.parent, prefix=f".{dest.name}.unpack-"))
    try:
        with tarfile.open(path, mode="r:gz") as archive:
            plan = _plan(archive.getmembers())
            _extract(archive, plan, staging)
        os.replace(staging, dest)
    except (tarfile.TarError, OSError, EOFError) as exc:
        raise SourceError(f"cannot unpack {path}: {exc}") from exc
    finally:
        if staging.exists():
            shutil.rmtree(staging)
    return dest
