"""One resolution shared by the locks of tasks whose cut-offs the index cannot tell apart.

Candidates of one library collect the same test requirements commit after commit, and pip-compile as of two
cut-off days returns the same pins whenever nothing it looks at changed between the days. That can be checked
from the index's own record instead of resolving again: with every pin of the first resolution at the newest
release of its project before the earlier day (so the resolver never backtracked, and looked at no project
outside the pins), and no file of those projects uploaded, yanked or not, between the two days, pip sees the
same candidates in the same order on both days and must choose the same pins with the same hashes. The lock
of the second task is then the first one's text under its own header (its own cut-off): byte for byte what
resolving again would write, without the resolver's work. Anything the rule cannot vouch for (a pin below
its project's newest release, a pre-release, a pin with no wheel (its metadata comes from building the sdist
with the build tools of each day), a file whose name the check cannot read, a fall-back resolution without a
cut-off, another build floor) is resolved as before.

The store is ``$BENCH_CACHE_DIR/locks/resolutions/<key>.json``, one list of past resolutions per set of inputs
(requirements, interpreter, tool lock, title, late set). Index pages are read on the host, once a process.
"""

from __future__ import annotations

import hashlib
import json
import threading
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

from bench.environment import build_floor
from bench.errors import EnvironmentBuildError

_KEY_VERSION = "resolution-share-v1"
# Files pip never installs: a page holding only these beside parseable files is still read whole.
_NEVER_INSTALLED = (".egg", ".exe", ".msi", ".rpm", ".dmg", ".deb")


@dataclass(frozen=True)
class Released:
    """One file of a project on the index: its version ("" when the name cannot be read), upload time, yank,
    and whether it is a wheel (pip reads a wheel's metadata as it is; an sdist's by building it, with build
    tools of the cut-off's day)."""

    version: str
    uploaded: datetime
    yanked: bool
    wheel: bool = True
    filename: str = ""
    requires_python: str = ""


Listing = Callable[[str], tuple[Released, ...]]
Fits = Callable[[Released], bool]  # whether pip would install this wheel on the image's interpreter


def any_wheel(released: Released) -> bool:
    return released.wheel


def share_key(*, python: str, tool_lock_sha256: str, inputs: tuple, dropped: tuple, project: str, title: str,
              late: tuple[str, ...]) -> str:
    material = json.dumps([_KEY_VERSION, python, tool_lock_sha256, sorted(map(list, inputs)),
                           sorted(map(list, dropped)), project, title, sorted(late)], separators=(",", ":"))
    return hashlib.sha256(material.encode("utf-8")).hexdigest()


def moment(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(timezone.utc)


def same_resolution(pins: tuple[tuple[str, str], ...], earlier: str, later: str, listing: Listing,
                    fits: Fits = any_wheel) -> bool:
    """True when pip-compile as of ``later`` must return ``pins`` again, having returned them as of ``earlier``
    (cut-offs in either order): every pin is its project's newest final release before the earlier day and has
    a wheel that ``fits`` the interpreter, and no file of a pinned project was uploaded between the two days."""
    from packaging.version import InvalidVersion, Version

    low, high = sorted((moment(earlier), moment(later)))
    if not pins:
        return False
    for name, version in pins:
        try:
            pinned = Version(version)
        except InvalidVersion:
            return False
        if pinned.is_prerelease:
            return False
        files = listing(name)
        if any(low <= f.uploaded < high for f in files):
            return False
        if any(f.version == "" for f in files):
            return False  # a file whose version the check cannot read might be a newer release
        released = {Version(f.version) for f in files if f.uploaded < low and not f.yanked
                    and not Version(f.version).is_prerelease}
        if not released or max(released) != pinned:
            return False
        if not any(f.version and Version(f.version) == pinned and f.uploaded < low and fits(f) for f in files):
            return False  # no wheel pip would install here: it builds the sdist, with build tools of each day
    return True


def releases_from_page(page: dict) -> tuple[Released, ...]:
    """The files of a PEP 691 JSON page with their versions read from the file names (PEP 700 upload times)."""
    from packaging.utils import InvalidSdistFilename, InvalidWheelFilename, parse_sdist_filename, \
        parse_wheel_filename

    files = []
    for entry in page.get("files", []):
        name, uploaded = entry.get("filename", ""), entry.get("upload-time")
        if not uploaded:
            raise EnvironmentBuildError(f"index page lists {name!r} without an upload time")
        if name.endswith(_NEVER_INSTALLED):
            continue
        try:
            version = str(parse_wheel_filename(name)[1] if name.endswith(".whl") else parse_sdist_filename(name)[1])
        except (InvalidWheelFilename, InvalidSdistFilename):
            version = ""
        files.append(Released(version, moment(uploaded), bool(entry.get("yanked")), name.endswith(".whl"), name,
                              entry.get("requires-python") or ""))
    return tuple(files)


class IndexPages:
    """Project pages of the index read on the host, each once for the life of the object, over one client."""

    def __init__(self, index_url: str = "https://pypi.org/simple") -> None:
        self.index_url = index_url.rstrip("/")
        self._pages: dict[str, tuple[Released, ...]] = {}
        self._lock = threading.Lock()
        self._house = None

    def __call__(self, name: str) -> tuple[Released, ...]:
        from bench.environment.wheelhouse import Wheelhouse
        from bench.spec.model import normalise_name

        key = normalise_name(name)
        with self._lock:
            if key in self._pages:
                return self._pages[key]
            if self._house is None:
                self._house = Wheelhouse(index_url=self.index_url)  # only its index client is used
            house = self._house
        files = releases_from_page(house.page(key))
        with self._lock:
            self._pages[key] = files
        return files


_PAGES = IndexPages()


class Store:
    """Past resolutions by input key, as JSON lists under the cache (written atomically)."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def entries(self, key: str) -> list[dict]:
        try:
            data = json.loads((self.root / f"{key}.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return []
        return data if isinstance(data, list) else []

    def add(self, key: str, entry: dict) -> None:
        from bench.store.atomic import write_atomic
        from bench.store.locks import file_lock

        self.root.mkdir(parents=True, exist_ok=True)
        with file_lock(self.root / f".{key}.lock"):  # another process may add to the same list meanwhile
            entries = [e for e in self.entries(key) if e.get("cutoff") != entry["cutoff"]] + [entry]
            write_atomic(self.root / f"{key}.json", json.dumps(entries, sort_keys=True).encode("utf-8"))


def default_store() -> Store:
    from bench.environment.wheelhouse import cache_root

    return Store(cache_root() / "locks" / "resolutions")


def settled(cutoff: str, now: datetime | None = None) -> bool:
    """A cut-off at least a day in the past: the index's files before it no longer grow (an upload in flight
    has landed), so a resolution as of it may be kept. A later one is "today" and is resolved every time."""
    now = now or datetime.now(timezone.utc)
    return (now - moment(cutoff)).total_seconds() >= SETTLED_SECONDS


SETTLED_SECONDS = 86400


def find_shared(entries: list[dict], wanted: str, python: str, listing: Listing = _PAGES,
                fits: Fits = any_wheel) -> dict | None:
    """A stored resolution (cut-off applied, same build floor) that ``wanted`` must repeat, else None. Whatever
    cannot be read (the index, a damaged entry) vouches for nothing: the caller resolves as before."""
    try:
        if not settled(wanted):
            return None
        floor = build_floor.build_cutoff(python, wanted)
        for entry in sorted(entries, key=lambda e: abs((moment(e["cutoff"]) - moment(wanted)).total_seconds())):
            if build_floor.build_cutoff(python, entry["cutoff"]) != floor:
                continue
            pins = tuple((name, version) for name, version in entry["first_pass"])
            if same_resolution(pins, entry["cutoff"], wanted, listing, fits):
                return entry
    except Exception:  # noqa: BLE001 - a shortcut that cannot be checked is not taken
        return None
    return None
