"""Tests of the sdist source: pinning from the JSON simple API, hash-checked download, safe unpacking."""

from __future__ import annotations

import dataclasses

import hashlib
import io
import json
import os
import tarfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from bench.errors import SourceError
from bench.source import sdist
from bench.spec.model import SdistPin

# --- a tiny index on loopback --------------------------------------------------------------------------


def _tar_bytes(entries: list[tuple[tarfile.TarInfo, bytes | None]]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for info, data in entries:
            if data is not None:
                info.size = len(data)
            archive.addfile(info, io.BytesIO(data) if data is not None else None)
    return buffer.getvalue()


def _file(name: str, data: bytes = b"x = 1\n", mode: int = 0o644) -> tuple[tarfile.TarInfo, bytes]:
    info = tarfile.TarInfo(name)
    info.mode = mode
    return info, data


def _special(name: str, kind: bytes, linkname: str = "") -> tuple[tarfile.TarInfo, None]:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = linkname
    return info, None


GOOD_SDIST = _tar_bytes(
    [
        _special("demo-1.0", tarfile.DIRTYPE),
        _file("demo-1.0/demo/__init__.py", b"def f(a, b):\n    return a < b\n"),
        _file("demo-1.0/tests/test_demo.py", b"def test_f():\n    pass\n"),
        _file("demo-1.0/run.sh", b"#!/bin/sh\n", mode=0o755),
        _special("demo-1.0/docs/link.py", tarfile.SYMTYPE, "../demo/__init__.py"),
        _special("demo-1.0/copy.py", tarfile.LNKTYPE, "demo-1.0/demo/__init__.py"),
    ]
)
GOOD_SHA = hashlib.sha256(GOOD_SDIST).hexdigest()


class _IndexHandler(BaseHTTPRequestHandler):
    served: dict[str, tuple[str, bytes]] = {}

    def do_GET(self) -> None:  # noqa: N802 (the stdlib's name)
        content_type, body = self.served.get(self.path, ("text/plain", b""))
        self.send_response(200 if body else 404)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture()
def index(tmp_path, monkeypatch):
    """A loopback JSON simple index for project `demo` with an sdist, a wheel and a zip; yields its URL."""
    monkeypatch.setenv("BENCH_CACHE_DIR", str(tmp_path / "cache"))
    files = [
        {"filename": "demo-1.0-py3-none-any.whl", "url": "/files/demo.whl", "hashes": {"sha256": "0" * 64}},
        {"filename": "demo-1.0.zip", "url": "/files/demo.zip", "hashes": {"sha256": "1" * 64}},
        {"filename": "demo-1.0.tar.gz", "url": "../../files/demo-1.0.tar.gz", "hashes": {"sha256": GOOD_SHA},
         "upload-time": "2024-10-04T23:15:03.123456Z"},
        {"filename": "demo-1.1.tar.gz", "url": "/files/other.tar.gz", "hashes": {"sha256": "2" * 64}},
    ]
    page = json.dumps({"meta": {"api-version": "1.1"}, "name": "demo", "files": files}).encode()
    _IndexHandler.served = {
        "/simple/demo/": (sdist.SIMPLE_JSON, page),
        "/files/demo-1.0.tar.gz": ("application/octet-stream", GOOD_SDIST),
    }
    server = ThreadingHTTPServer(("127.0.0.1", 0), _IndexHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/simple"
    server.shutdown()
    server.server_close()


def test_find_release_pins_the_tar_gz_of_that_version(index):
    pin = sdist.find_release("Demo", "1.0", index_url=index)
    assert pin == SdistPin("demo", "1.0", "demo-1.0.tar.gz", GOOD_SHA, index)


def test_a_mutation_candidate_is_dated_by_the_upload_day_of_its_release(index):
    from bench.kinds.mutation import MutationKind, upload_day

    upload_day.cache_clear()
    pin = sdist.find_release("demo", "1.0", index_url=index)
    doc = {"provenance": {"source": "mutation"}, "sdist": dataclasses.asdict(pin)}
    assert MutationKind().dating(doc) == {"released": "2024-10-04"}
    assert MutationKind().dating({**doc, "provenance": {"source": "mutation", "released": "2020-01-01"}}) == {}
    other = dataclasses.replace(pin, filename="demo-1.1.tar.gz", version="1.1")  # the index gives no time
    assert MutationKind().dating({**doc, "sdist": dataclasses.asdict(other)}) == {}


def test_a_synthetic_candidate_is_dated_by_the_day_it_is_admitted():
    import datetime

    from bench.kinds.synthetic import SyntheticKind

    def today():
        return datetime.datetime.now(datetime.timezone.utc).date().isoformat()

    first = today()
    dated = SyntheticKind().dating({"provenance": {"source": "authored"}})
    assert dated["authored"] in {first, today()}  # a run across midnight sees either day
    assert SyntheticKind().dating({"provenance": {"source": "authored", "authored": "2026-11-30"}}) == {}


def test_released_sdists_are_the_dated_tar_gz_files_oldest_first(index):
    # the 1.0 sdist has an upload time; the 1.1 one has none and cannot be dated; wheels and zips are no sdists
    assert sdist.released_sdists("demo", index_url=index) == (("1.0", "2024-10-04"),)


def test_find_release_of_a_missing_version_or_project_is_a_source_error(index):
    with pytest.raises(SourceError, match="no .tar.gz sdist of demo==2.0"):
        sdist.find_release("demo", "2.0", index_url=index)
    with pytest.raises(SourceError, match="no project"):
        sdist.find_release("absent", "1.0", index_url=index)


def test_fetch_verifies_and_caches_by_content_address(index, tmp_path):
    pin = sdist.find_release("demo", "1.0", index_url=index)
    path = sdist.fetch_sdist(pin)
    assert path == tmp_path / "cache" / "sdists" / GOOD_SHA / "demo-1.0.tar.gz"
    assert path.read_bytes() == GOOD_SDIST
    _IndexHandler.served = {}  # a second fetch is served from the cache, without the index
    assert sdist.fetch_sdist(pin) == path


def test_fetch_hash_mismatch_is_refused_and_leaves_nothing_behind(index, tmp_path):
    pin = SdistPin("demo", "1.0", "demo-1.0.tar.gz", "f" * 64, index)
    with pytest.raises(SourceError, match="sha256 mismatch"):
        sdist.fetch_sdist(pin)
    sdists = tmp_path / "cache" / "sdists"
    assert not sdists.exists() or list(sdists.rglob("*")) == []


def test_fetch_replaces_a_corrupted_cache_entry(index):
    pin = sdist.find_release("demo", "1.0", index_url=index)
    cached = sdist.cached_path(pin)
    cached.parent.mkdir(parents=True)
    cached.write_bytes(b"tampered")
    assert sdist.fetch_sdist(pin).read_bytes() == GOOD_SDIST


def test_fetch_refuses_a_pin_whose_filename_is_a_path(index):
    with pytest.raises(SourceError, match="malformed pin"):
        sdist.fetch_sdist(SdistPin("demo", "1.0", "../demo-1.0.tar.gz", GOOD_SHA, index))


# --- unpacking ---------------------------------------------------------------------------------------------


def _archive(tmp_path: Path, entries) -> Path:
    path = tmp_path / "in.tar.gz"
    path.write_bytes(_tar_bytes(entries))
    return path


def test_unpack_strips_the_top_directory_and_keeps_safe_links(tmp_path):
    archive = tmp_path / "demo.tar.gz"
    archive.write_bytes(GOOD_SDIST)
    root = sdist.unpack_sdist(archive, tmp_path / "tree")
    assert root == tmp_path / "tree"
    names = sorted(str(p.relative_to(root)) for p in root.rglob("*"))
    assert names == ["copy.py", "demo", "demo/__init__.py", "docs", "docs/link.py", "run.sh", "tests",
                     "tests/test_demo.py"]
    assert (root / "docs/link.py").is_symlink() and (root / "docs/link.py").read_text().startswith("def f")
    assert not (root / "copy.py").is_symlink() and (root / "copy.py").read_text().startswith("def f")
    assert os.access(root / "run.sh", os.X_OK) and not os.access(root / "demo/__init__.py", os.X_OK)


EVIL_ARCHIVES = {
    "absolute_path": [_file("/etc/evil")],
    "dotdot_path": [_file("demo-1.0/../../evil")],
    "two_top_dirs": [_file("demo-1.0/a.py"), _file("other/b.py")],
    "file_at_top": [_file("evil.py")],
    "symlink_absolute": [_file("demo-1.0/a.py"), _special("demo-1.0/l", tarfile.SYMTYPE, "/etc/passwd")],
    "symlink_escapes": [_file("demo-1.0/a.py"), _special("demo-1.0/d/l", tarfile.SYMTYPE, "../../../x")],
    "symlink_to_root": [_file("demo-1.0/a.py"), _special("demo-1.0/d/l", tarfile.SYMTYPE, "..")],
    "symlink_chain_escapes": [
        _file("demo-1.0/sub/deep/a.py"),
        _special("demo-1.0/sub/deep/up", tarfile.SYMTYPE, ".."),
        _special("demo-1.0/esc", tarfile.SYMTYPE, "sub/deep/up/../../../x"),
    ],
    "write_through_symlink": [
        _special("demo-1.0/l", tarfile.SYMTYPE, "sub"),
        _file("demo-1.0/sub/a.py"),
        _file("demo-1.0/l/b.py"),
    ],
    "hardlink_outside": [_file("demo-1.0/a.py"), _special("demo-1.0/h", tarfile.LNKTYPE, "/etc/passwd")],
    "hardlink_other_top": [_file("demo-1.0/a.py"), _special("demo-1.0/h", tarfile.LNKTYPE, "x/../etc/passwd")],
    "char_device": [_file("demo-1.0/a.py"), _special("demo-1.0/null", tarfile.CHRTYPE)],
    "block_device": [_file("demo-1.0/a.py"), _special("demo-1.0/sda", tarfile.BLKTYPE)],
    "fifo": [_file("demo-1.0/a.py"), _special("demo-1.0/pipe", tarfile.FIFOTYPE)],
}

EVIL_REASONS = {
    "absolute_path": "unsafe path",
    "dotdot_path": "unsafe path",
    "two_top_dirs": "exactly one top-level directory",
    "file_at_top": "top-level entry is not a directory",
    "symlink_absolute": "unsafe link",
    "symlink_escapes": "link leaves the sdist tree",
    "symlink_to_root": "link to the sdist root",
    "symlink_chain_escapes": "link leaves the sdist tree",
    "write_through_symlink": "File exists",
    "hardlink_outside": "unsafe link",
    "hardlink_other_top": "unsafe link",
    "char_device": "unsupported member type",
    "block_device": "unsupported member type",
    "fifo": "unsupported member type",
}


@pytest.mark.parametrize("case", sorted(EVIL_ARCHIVES))
def test_unpack_refuses_unsafe_members_and_leaves_nothing_behind(tmp_path, case):
    work = tmp_path / "work"
    work.mkdir()
    archive = _archive(tmp_path, EVIL_ARCHIVES[case])
    with pytest.raises(SourceError, match=EVIL_REASONS[case]):
        sdist.unpack_sdist(archive, work / "tree")
    assert list(work.iterdir()) == []
    assert not (tmp_path / "evil").exists() and not (tmp_path.parent / "evil").exists()


def test_unpack_refuses_an_archive_claiming_too_many_bytes(tmp_path, monkeypatch):
    monkeypatch.setattr(sdist, "MAX_UNPACKED_BYTES", 10)
    archive = _archive(tmp_path, [_file("demo-1.0/a.py", b"x" * 11)])
    with pytest.raises(SourceError, match="too large"):
        sdist.unpack_sdist(archive, tmp_path / "tree")
    assert not (tmp_path / "tree").exists()


def test_unpack_refuses_an_existing_destination(tmp_path):
    archive = tmp_path / "demo.tar.gz"
    archive.write_bytes(GOOD_SDIST)
    (tmp_path / "tree").mkdir()
    with pytest.raises(SourceError, match="already exists"):
        sdist.unpack_sdist(archive, tmp_path / "tree")


def test_unpack_of_a_non_gzip_file_is_a_source_error(tmp_path):
    archive = tmp_path / "bad.tar.gz"
    archive.write_bytes(b"not a tarball")
    with pytest.raises(SourceError, match="cannot unpack"):
        sdist.unpack_sdist(archive, tmp_path / "tree")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.tar.gz"]


# --- the real index ----------------------------------------------------------------------------------------


def test_real_index_pins_and_fetches_six(tmp_path, monkeypatch):
    monkeypatch.setenv("BENCH_CACHE_DIR", str(tmp_path / "cache"))
    pin = sdist.find_release("six", "1.16.0")
    assert (pin.filename, pin.sha256) == (
        "six-1.16.0.tar.gz",
        "1e61c37477a1626458e36f7b1d82aa5c9b094fa4802892072e49de9c60c4c926",
    )
    path = sdist.fetch_sdist(pin)
    assert hashlib.sha256(path.read_bytes()).hexdigest() == pin.sha256
    root = sdist.unpack_sdist(path, tmp_path / "six")
    assert (root / "six.py").is_file() and (root / "test_six.py").is_file()
    tampered = SdistPin(pin.name, pin.version, pin.filename, "0" * 64, pin.index_url)
    with pytest.raises(SourceError, match="sha256 mismatch"):
        sdist.fetch_sdist(tampered)
    assert not (tmp_path / "cache" / "sdists" / ("0" * 64)).exists()
