"""A task's committed certificate, taken by scoring when nothing it was made from has changed.

Certifying again on another machine runs the same tests in the same image and lock, yet can give other bytes
where no input decides the outcome: a flaky test seen in one set of K runs and not in the next, a test id that
carries the clock (a parameter formatted from ``datetime.now()``). Records bind the certificate's hash, so such
a drift would make a fresh machine's records differ from the committed ones for no change of the task. The
committed certificate is the reference: scoring grades against it whenever it was made from exactly the
inputs at hand, and certifies afresh only when one of them changed.
"""

from __future__ import annotations

from pathlib import Path

from bench import __version__
from bench.gate.certify import (CERTIFICATE_VERSION, GATE_VERSION, Certificate, certificate_file,
                                certificate_from_json, lock_path, read_certificate, task_files_digest)
from bench.spec.load import spec_sha256
from bench.spec.model import TaskSpec
from bench.store.canonical import sha256_bytes

# The backend admission certifies under, so the one every committed certificate was made in.
COMMITTED_SANDBOX = "bwrap"


def committed_certificate(spec: TaskSpec, root: Path, *, k: int, sandbox_name: str) -> Certificate | None:
    """The task's committed certificate when it certifies exactly what would be certified here: the same spec,
    lock, pinned image digest, environment key, K, gate and harness version, and the sandbox admission uses.
    Scoring takes it instead of certifying again, so a fresh machine grades against the very sets the committed
    results were graded against: a second certification can differ in what no input decides (a flaky test, a
    test id that carries the clock). A task whose code lives in this repository (synthetic) is certified here:
    its certificate does not record that code."""
    from bench.environment.image import image_folder, read_pin
    from bench.environment.venv import env_key

    path = certificate_file(root, spec.task_id)
    if sandbox_name != COMMITTED_SANDBOX or not path.is_file() or task_files_digest(spec, root):
        return None
    data = read_certificate(path)
    stored = certificate_from_json(data)
    digest, _ = read_pin(image_folder(spec.image, root))
    lock_sha256 = sha256_bytes(lock_path(spec, root).read_bytes())
    wanted = (spec.task_id, spec_sha256(spec), lock_sha256, spec.image, digest, env_key(digest or "", lock_sha256),
              k, GATE_VERSION, __version__, CERTIFICATE_VERSION)
    found = (stored.task_id, stored.spec_sha256, stored.lock_sha256, stored.image, stored.image_digest,
             stored.env_key, stored.k, stored.gate_version, stored.harness_version, stored.certificate_version)
    if found != wanted or stored.to_json() != data:
        return None
    return stored
