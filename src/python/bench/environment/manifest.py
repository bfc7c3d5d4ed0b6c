"""The environment manifest: what exactly a test ran with, as canonical JSON with a sha256.

Interpreter facts and the installed distributions are queried INSIDE the sandbox (the venv's own
interpreter reports what it sees); the host only adds what it knows for sure: the image digest, the lock
sha256, which wheel file (by hash) each distribution was installed from, and the harness version and commit.
Nothing host-specific (paths on the host, kernel release, hostname, times) enters the hashed record.
"""

from __future__ import annotations

import functools
import hashlib
import json
import subprocess
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Mapping

from bench.store.canonical import canonical_json

MANIFEST_VERSION = 1
HARNESS_VERSION_FALLBACK = "0.1.0"

# Runs inside the sandbox with the interpreter being described. Prints one JSON object.
INTERPRETER_QUERY = r"""
import json, platform, sys, sysconfig
libc, libc_version = platform.libc_ver()
print(json.dumps({
    "implementation": sys.implementation.name,
    "version": platform.python_version(),
    "soabi": sysconfig.get_config_var("SOABI") or "",
    "platform": sysconfig.get_platform(),
    "machine": platform.machine(),
    "libc": libc,
    "libc_version": libc_version,
}, sort_keys=True))
"""

# Runs inside the sandbox with a venv's interpreter: every distribution in its site-packages.
DISTRIBUTIONS_QUERY = r"""
import hashlib, json, sys, sysconfig
from importlib import metadata
site = sysconfig.get_paths()["purelib"]
rows = []
for dist in metadata.distributions(path=[site]):
    record = dist.read_text("RECORD") or ""
    rows.append({
        "name": dist.metadata["Name"],
        "version": dist.version,
        "installer": (dist.read_text("INSTALLER") or "").strip(),
        "record_sha256": hashlib.sha256(record.encode("utf-8")).hexdigest() if record else "",
    })
print(json.dumps(sorted(rows, key=lambda r: (r["name"].lower(), r["version"])), sort_keys=True))
"""


@dataclass(frozen=True)
class InterpreterInfo:
    """The interpreter as it describes itself inside the sandbox (no kernel or host facts)."""

    implementation: str  # "cpython"
    version: str  # "3.13.5"
    soabi: str  # "cpython-313-x86_64-linux-gnu"
    platform: str  # "linux-x86_64"
    machine: str  # "x86_64"
    libc: str  # "glibc"
    libc_version: str  # "2.41"

    @property
    def version_info(self) -> tuple[int, int]:
        major, minor = self.version.split(".")[:2]
        return int(major), int(minor)

    @property
    def site_packages(self) -> str:
        """Relative path of a venv's site-packages for this interpreter."""
        major, minor = self.version_info
        return f"lib/python{major}.{minor}/site-packages"

    @classmethod
    def from_json(cls, text: str | Mapping[str, Any]) -> InterpreterInfo:
        data = json.loads(text) if isinstance(text, str) else dict(text)
        return cls(**{name: str(data[name]) for name in cls.__dataclass_fields__})


@dataclass(frozen=True)
class InstalledDistribution:
    name: str
    version: str
    installer: str  # from the dist-info INSTALLER file ("pip")
    record_sha256: str  # sha256 of the dist-info RECORD: the installed files and their hashes
    wheel_filename: str  # the wheelhouse file it was installed from; "" for what the image's ensurepip put
    wheel_sha256: str
    origin: str  # "lock" | "built-from-sdist:<sdist sha256>" | "image" (pip from the image's ensurepip)


@dataclass(frozen=True)
class Manifest:
    image_digest: str
    lock_sha256: str
    env_key: str
    interpreter: InterpreterInfo
    distributions: tuple[InstalledDistribution, ...]
    harness_version: str
    harness_commit: str
    manifest_version: int = MANIFEST_VERSION

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def canonical_json(self) -> str:
        return canonical_json(self.to_dict()).decode("utf-8")

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.canonical_json().encode("utf-8")).hexdigest()

    def distribution(self, name: str) -> InstalledDistribution | None:
        wanted = name.lower().replace("_", "-")
        return next((d for d in self.distributions if d.name.lower().replace("_", "-") == wanted), None)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Manifest:
        return cls(
            image_digest=data["image_digest"],
            lock_sha256=data["lock_sha256"],
            env_key=data["env_key"],
            interpreter=InterpreterInfo.from_json(data["interpreter"]),
            distributions=tuple(InstalledDistribution(**d) for d in data["distributions"]),
            harness_version=data["harness_version"],
            harness_commit=data["harness_commit"],
            manifest_version=int(data.get("manifest_version", MANIFEST_VERSION)),
        )


def harness_version() -> str:
    import bench

    return str(getattr(bench, "__version__", "") or HARNESS_VERSION_FALLBACK)


@functools.cache
def harness_commit() -> str:
    """``git rev-parse HEAD`` of the checkout holding this package, or "" outside a git checkout."""
    here = Path(__file__).resolve().parent
    try:
        done = subprocess.run(
            ["git", "-C", str(here), "rev-parse", "--verify", "-q", "HEAD"],
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return ""
    commit = done.stdout.strip()
    return commit if done.returncode == 0 and len(commit) == 40 else ""


def build_manifest(
    *,
    image_digest: str,
    lock_sha256: str,
    env_key: str,
    interpreter: InterpreterInfo,
    installed: tuple[Mapping[str, str], ...],
    wheels: Mapping[str, tuple[str, str, str]],
) -> Manifest:
    """Join what the venv reports (``installed``) with the wheel each came from (``wheels``: name →
    (filename, sha256, origin), keyed by normalised name)."""
    rows = []
    for row in installed:
        key = row["name"].lower().replace("_", "-").replace(".", "-")
        filename, sha256, origin = wheels.get(key, ("", "", "image"))
        rows.append(
            InstalledDistribution(
                name=row["name"],
                version=row["version"],
                installer=row["installer"],
                record_sha256=row["record_sha256"],
                wheel_filename=filename,
                wheel_sha256=sha256,
                origin=origin,
            )
        )
    return Manifest(
        image_digest=image_digest,
        lock_sha256=lock_sha256,
        env_key=env_key,
        interpreter=interpreter,
        distributions=tuple(sorted(rows, key=lambda d: (d.name.lower(), d.version))),
        harness_version=harness_version(),
        harness_commit=harness_commit(),
    )
