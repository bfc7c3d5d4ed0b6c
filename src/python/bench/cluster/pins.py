"""What a worker's environment for a task must match: the client's pins (lock hash, image and its digest, and
the version of the harness code that runs there). A worker compares its own before it works on the task."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Pins:
    """The client's view of what a task is run in; a worker must see the same."""

    lock_sha256: str
    image: str
    image_digest: str
    runner_version: str = ""  # the scoring runner's version; "" where only the environment matters (the gate)

    @property
    def environment(self) -> str:
        """Where units prefer to go: the workers that already hold this environment (lock + image)."""
        return hashlib.sha256(f"{self.lock_sha256}\n{self.image}".encode()).hexdigest()[:16]


def environment_pins(spec, root: Path, *, runner_version: str = "") -> Pins:
    from bench.environment.image import image_folder, read_pin
    from bench.store.canonical import sha256_bytes

    digest, _ = read_pin(image_folder(spec.image, root))
    return Pins(sha256_bytes((root / spec.lockfile).read_bytes()), spec.image, digest or "", runner_version)
