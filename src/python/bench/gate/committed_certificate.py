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

from bench.gate.certify import (CERTIFICATE_VERSION, Certificate, certificate_file, certificate_from_json,
                                certificate_key, read_certificate)
from bench.spec.model import TaskSpec

# The backend admission certifies under, so the one every committed certificate was made in.
COMMITTED_SANDBOX = "bwrap"


def committed_certificate(spec: TaskSpec, root: Path, *, k: int, sandbox_name: str) -> Certificate | None:
    """The task's committed certificate when it certifies exactly what would be certified here: every input of
    :func:`certificate_key` (spec, lock, pinned image digest, K, gate and harness version) the same, under the
    sandbox admission uses. Scoring takes it instead of certifying again, so a fresh machine grades against the
    very sets the committed results were graded against: a second certification can differ in what no input
    decides (a flaky test, a test id that carries the clock). A task whose code lives in this repository
    (synthetic) is certified here: its certificate does not record that code."""
    path = certificate_file(root, spec.task_id)
    if sandbox_name != COMMITTED_SANDBOX or not path.is_file():
        return None
    wanted = certificate_key(spec, root, k=k, sandbox_name=sandbox_name)
    if wanted["task_files_sha256"]:
        return None
    data = read_certificate(path)
    stored = certificate_from_json(data)
    made_from = {"spec_sha256": stored.spec_sha256, "task_files_sha256": "", "lock_sha256": stored.lock_sha256,
                 "image": stored.image, "image_digest": stored.image_digest, "k": stored.k,
                 "sandbox": COMMITTED_SANDBOX, "gate_version": stored.gate_version,
                 "harness_version": stored.harness_version}
    if (made_from != wanted or stored.task_id != spec.task_id or stored.certificate_version != CERTIFICATE_VERSION
            or stored.to_json() != data):
        return None
    return stored
