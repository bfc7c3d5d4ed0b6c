"""The guard's launcher as bytecode of the task's own interpreter, compiled once per environment.

Every guarded run starts Python on the launcher before pytest, and compiling the launcher's source is a cost
every run paid again (2 % of a short task's whole test run: 19.5 of caesar_shift's 851 million instructions). Python runs a ``.pyc`` file given as
the script directly. The bytecode must come from the interpreter that runs it, so the task's interpreter
compiles it in a sandbox run of its own — the launcher's text alone in an empty work dir: no workspace, no
candidate, nothing a run can write reaches it. The result is kept in memory and under the cache dir, keyed by
the launcher's text, the interpreter, the image and the mounts that carry the environment. Where compiling
fails, runs use the source as before; a run never depends on the cache being there.
"""

from __future__ import annotations

import functools
import hashlib
import json
import threading
from pathlib import Path

from bench.errors import BenchError

PYC_MAGIC_BYTES = 4  # what every interpreter checks before running a .pyc
# Hash-based, unchecked: the header holds the text's hash, not the mtime of the file it was compiled from, so
# compiling the same launcher again gives the same bytes (a .pyc run by path is never checked against a source).
_COMPILE = ("import py_compile\n"
            "py_compile.compile('launcher.py', cfile='launcher.pyc', dfile='launcher.py', doraise=True,\n"
            "                   invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)\n")
_known: dict[str, bytes | None] = {}
_lock = threading.Lock()


def launcher_bytecode(where, source: bytes) -> bytes | None:
    """The launcher ``source`` compiled by the interpreter of ``where`` (a ``RunEnvironment``), or None where it
    could not be compiled."""
    key = _key(where, source)
    with _lock:
        if key in _known:
            return _known[key]
        code = _cached(key) or _compiled(where, source)
        if code is not None:
            _store(key, code)
        _known[key] = code
        return code


def _key(where, source: bytes) -> str:
    mounts = sorted((str(m.host_path), m.sandbox_path, bool(m.writable)) for m in where.mounts)
    parts = {"launcher": _digest(source), "python": where.python, "image": where.image_digest,
             "root": str(where.image_root), "mounts": mounts, "backend": getattr(where.sandbox, "name", "")}
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


@functools.lru_cache(maxsize=4)
def _digest(source: bytes) -> str:
    """Once per launcher text, not once per run (every guarded run asks for the bytecode)."""
    return hashlib.sha256(source).hexdigest()


def _folder() -> Path:
    from bench.variables import cache_dir

    return cache_dir() / "guard-launcher"


def _cached(key: str) -> bytes | None:
    """The cached bytecode, if its file is whole: the file starts with the sha256 of what follows."""
    try:
        stored = (_folder() / f"{key}.pyc").read_bytes()
    except OSError:
        return None
    digest, code = stored[:32], stored[32:]
    return code if len(code) > PYC_MAGIC_BYTES and hashlib.sha256(code).digest() == digest else None


def _store(key: str, code: bytes) -> None:
    from bench.store.atomic import write_atomic

    try:
        _folder().mkdir(parents=True, exist_ok=True)
        write_atomic(_folder() / f"{key}.pyc", hashlib.sha256(code).digest() + code)
    except OSError:
        pass  # a read-only cache dir: the bytecode stays in memory for this process


def _compiled(where, source: bytes) -> bytes | None:
    from bench.sandbox.cleanup import scratch_dir
    from bench.sandbox.protocol import ExecRequest, Limits, NetworkPolicy
    from bench.verdict.run_tests import BASE_ENV

    with scratch_dir(prefix="bench-launcher-") as work:
        (work / "launcher.py").write_bytes(source)
        request = ExecRequest(argv=(where.python, "-c", _COMPILE), workdir=work, image_root=where.image_root,
                              image_digest=where.image_digest, env=tuple(BASE_ENV) + tuple(where.env),
                              limits=Limits(wall_seconds=60.0), network=NetworkPolicy.NONE,
                              mounts=tuple(where.mounts))
        try:
            result = where.sandbox.run(request)
        except BenchError:
            return None
        target = work / "launcher.pyc"
        if result.exit_code != 0 or not target.is_file() or target.is_symlink():
            return None
        code = target.read_bytes()
    return code if len(code) > PYC_MAGIC_BYTES else None
