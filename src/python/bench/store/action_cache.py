"""A content-addressed cache of results: the same inputs (hashed into a key) give the stored bytes back.

The certification gate and deterministic scoring use it, so running them again with nothing changed does no
work; the Pants goals compute the same key from the same inputs.
"""

from __future__ import annotations

from pathlib import Path

from bench.store.atomic import write_atomic
from bench.store.canonical import sha256_of
from bench.variables import cache_dir


class ActionCache:
    def __init__(self, namespace: str, root: Path | None = None) -> None:
        self.root = (root or cache_dir() / "actions") / namespace

    def key(self, inputs: dict) -> str:
        return sha256_of(inputs)

    def path_for(self, key: str) -> Path:
        return self.root / key[:2] / key

    def get(self, key: str) -> bytes | None:
        path = self.path_for(key)
        return path.read_bytes() if path.is_file() else None

    def put(self, key: str, data: bytes) -> None:
        path = self.path_for(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, data)


__all__ = ["ActionCache", "write_atomic"]
