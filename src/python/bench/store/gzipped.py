"""Committed JSON files kept gzipped: written deterministically, and left alone when their content is unchanged.

Certificates (``results/certificates/``) and synthetic tasks' probe sets (``results/probes/sets/``) are such
files. gzip's header and deflate's output differ between Python and zlib versions (3.9 and 3.12 write OS byte 255
where 3.11 writes 3), so a file whose content did not change is not rewritten: it must not show as changed after
a command that made the same content again.
"""

from __future__ import annotations

import gzip
import zlib
from pathlib import Path

from bench.store.atomic import write_atomic


def write(path: Path, data: bytes) -> Path:
    """Write ``data`` to ``path``, gzipped when the name ends in .gz; a file already holding it is left as is."""
    if path.is_file():
        try:
            if read(path) == data:
                return path
        except (OSError, EOFError, zlib.error):  # unreadable, or not gzip: written anew below
            pass
    return write_atomic(path, _gzip(data) if path.suffix == ".gz" else data)


def read(path: Path) -> bytes:
    """The content of a file :func:`write` wrote."""
    data = path.read_bytes()
    return gzip.decompress(data) if path.suffix == ".gz" else data


def _gzip(data: bytes) -> bytes:
    """gzip of ``data`` with one header whatever the Python: no name, mtime 0, best compression, OS Unix."""
    body = zlib.compress(data, 9, wbits=31)
    return b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\x03" + body[10:]
