"""A venv for a new lock made from a cached one that installs the same requirements.

Two locks that pin the same requirements (name, version, every accepted hash, marker) on the same image and
interpreter install the same files: their venvs differ only in the lock text kept beside the venv, which is
where tasks of one library resolved as of different days (same pins, another header) part. Admission meets
that case for nearly every batch of one library's candidates, so instead of installing again the cached venv
is copied (hard links: venvs are read-only once built) and given the new lock's text. The env key stays the
key of the new lock, so nothing a certificate records changes; only the time to make the entry does.

``venvs/by-requirements/<requirements key>`` names the env key of a complete venv with those requirements.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Callable

from bench.environment.lock import Lock

INDEX_DIR = "by-requirements"
LOCK_TEXT = "lock.txt"
_KEY_VERSION = "venv-requirements-v1"


def requirements_key(image_digest: str, lock: Lock, interpreter: str, allow_sdists: bool, builder: str = "") -> str:
    """sha256 over what decides a venv's installed files: image, interpreter, the pins, and whether sdists
    are built and by what (``builder``: the sdist build tools' lock, whose wheels a built sdist depends on)."""
    pins = sorted([r.name, r.version, sorted(r.hashes), r.marker] for r in lock.requirements)
    material = json.dumps([_KEY_VERSION, image_digest, interpreter, allow_sdists, builder, pins],
                          separators=(",", ":"))
    return hashlib.sha256(material.encode("utf-8")).hexdigest()


def donor(venvs: Path, key: str, record_name: str) -> Path | None:
    """The complete cached venv entry holding these requirements, if one is known and still there."""
    index = venvs / INDEX_DIR / key
    try:
        env_key = index.read_text(encoding="utf-8").strip()
    except OSError:
        return None
    entry = venvs / env_key
    return entry if env_key and (entry / record_name).is_file() else None


def remember(venvs: Path, key: str, env_key: str) -> None:
    """Name ``env_key`` as a venv with these requirements (atomically; the last writer wins, any is right)."""
    folder = venvs / INDEX_DIR
    folder.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(prefix=f".{key[:12]}-", dir=folder)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(env_key + "\n")
    os.replace(temp, folder / key)


def copy_entry(source: Path, final: Path, lock: Lock) -> bool:
    """Make ``final`` a copy of the venv entry ``source`` holding ``lock``'s text; False (nothing left behind)
    when the copy cannot be made, so the caller builds instead."""
    scratch = Path(tempfile.mkdtemp(prefix=f".copy-{final.name[:12]}-", dir=final.parent))
    root = scratch / "env"
    try:
        shutil.copytree(source, root, symlinks=True, copy_function=_link_or_copy)
        (root / LOCK_TEXT).unlink(missing_ok=True)  # a hard link: never write through it into the source
        (root / LOCK_TEXT).write_text(lock.text, encoding="utf-8")
        os.rename(root, final)
        return True
    except OSError:
        return False
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _link_or_copy(src: str, dst: str) -> None:
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)


SKELETONS = ".skeletons"
_SKELETON_VERSION = "venv-skeleton-v1"


def skeleton(venvs: Path, image_digest: str, interpreter: str, create: Callable[[Path], None]) -> Path:
    """The empty venv (the interpreter's ``venv`` module and the pip it bundles) every venv of this image
    starts as, made once by ``create(root)`` (which must leave ``root/venv``) and copied for each build after:
    ``python -m venv`` is the same files each time, and over half of a small lock's build."""
    from bench.store.locks import file_lock

    key = hashlib.sha256(f"{_SKELETON_VERSION}\n{image_digest}\n{interpreter}".encode("utf-8")).hexdigest()
    folder = venvs / SKELETONS
    final = folder / key
    if (final / "venv" / "pyvenv.cfg").is_file():
        return final / "venv"
    folder.mkdir(parents=True, exist_ok=True)
    with file_lock(folder / f".{key}.lock"):
        if not (final / "venv" / "pyvenv.cfg").is_file():
            scratch = Path(tempfile.mkdtemp(prefix=f".make-{key[:12]}-", dir=folder))
            try:
                create(scratch)
                os.rename(scratch, final)
            finally:
                shutil.rmtree(scratch, ignore_errors=True)
    return final / "venv"
