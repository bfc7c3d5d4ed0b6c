"""pip-compile runs as of a past day, remembered by everything they read.

A compile as of a cut-off reads its input files, the tool venv, the image and the index's files uploaded
before the cut-off, and the index does not rewrite its past (it can only yank or delete, which this cache, like
the stored resolutions of :mod:`resolution_share`, does not follow: it repeats what the index said the first
time). Admission runs the same compile again and again: the build floor's first pass (a library's build
requirements as of the interpreter's release) is the same for every candidate of the library, and a retried
candidate compiles its inputs again as of the same day. A compile without a cut-off asks "today" and is never
remembered, nor is one that failed.

``$BENCH_CACHE_DIR/locks/compiles/<key>.json`` holds the output file and the run's own output.
"""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path

from bench.sandbox.protocol import ExecResult

_KEY_VERSION = "pip-compile-v1"
INPUT_FILES = ("requirements.in", "held.txt")


def compile_key(argv: tuple[str, ...], step: Path, image_digest: str, tool_sources: tuple[str, ...],
                env: tuple[tuple[str, str], ...]) -> str:
    """sha256 over the command, its environment, the image, the tool venv (by its cache entry: its key names
    the tool lock) and the bytes of every input file in the step folder."""
    files = {name: hashlib.sha256((step / name).read_bytes()).hexdigest()
             for name in INPUT_FILES if (step / name).is_file()}
    material = json.dumps([_KEY_VERSION, list(argv), sorted(map(list, env)), image_digest, list(tool_sources),
                           files], separators=(",", ":"))
    return hashlib.sha256(material.encode("utf-8")).hexdigest()


def load(store: Path, key: str, output: Path) -> ExecResult | None:
    """Write the remembered output file and return the remembered run, or None when there is none."""
    try:
        data = json.loads((store / f"{key}.json").read_text(encoding="utf-8"))
        text = base64.b64decode(data["output_file"])
        stdout, stderr = base64.b64decode(data["stdout"]), base64.b64decode(data["stderr"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    output.write_bytes(text)
    return ExecResult(0, None, False, False, stdout, stderr, False, False, 0.0, 0.0, notes=("remembered",))


def save(store: Path, key: str, output: Path, result: ExecResult) -> None:
    from bench.store.atomic import write_atomic

    if not result.ok or not output.is_file():
        return
    document = {"output_file": base64.b64encode(output.read_bytes()).decode("ascii"),
                "stdout": base64.b64encode(result.stdout).decode("ascii"),
                "stderr": base64.b64encode(result.stderr).decode("ascii")}
    store.mkdir(parents=True, exist_ok=True)
    write_atomic(store / f"{key}.json", json.dumps(document, sort_keys=True).encode("utf-8"))


def default_store() -> Path:
    from bench.environment.wheelhouse import cache_root

    return cache_root() / "locks" / "compiles"
