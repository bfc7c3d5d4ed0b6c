"""A task's committed certificate, taken by scoring when nothing it was made from has changed.

Certifying again on another machine runs the same tests in the same image and lock, yet can give other bytes
where no input decides the outcome: a flaky test seen in one set of K runs and not in the next, a test id that
carries the clock (a parameter formatted from ``datetime.now()``). Records bind the certificate's hash, so such
a drift would make a fresh machine's records differ from the committed ones for no change of the task. The
committed certificate is the reference: scoring grades against it whenever it was made from exactly the
inputs at hand, and certifies afresh only when one of them changed.

A task whose code lives in this repository (a synthetic task's folder) has that code among the inputs, and the
certificate itself does not record it: beside such a certificate, ``results/certificates/inputs/<task_id>.json``
records the inputs it was made from (:func:`certificate_key`) and its sha256, written whenever the certificate
is, so a changed task folder still means certifying again.
"""

from __future__ import annotations

from pathlib import Path

import hashlib
import json

from bench.gate.certify import (CERTIFICATE_VERSION, Certificate, certificate_file, certificate_from_json,
                                certificate_key, read_certificate, write_certificate)
from bench.spec.model import TaskSpec

# The backend admission certifies under, so the one every committed certificate was made in.
COMMITTED_SANDBOX = "bwrap"


def committed_certificate(spec: TaskSpec, root: Path, *, k: int, sandbox_name: str) -> Certificate | None:
    """The task's committed certificate when it certifies exactly what would be certified here: every input of
    :func:`certificate_key` (spec, lock, pinned image digest, K, gate and harness version) the same, under the
    sandbox admission uses. Scoring takes it instead of certifying again, so a fresh machine grades against the
    very sets the committed results were graded against: a second certification can differ in what no input
    decides (a flaky test, a test id that carries the clock). A task whose code lives in this repository
    (synthetic) counts only while its committed inputs record (:func:`inputs_file`) names that code as it is."""
    path = certificate_file(root, spec.task_id)
    if sandbox_name != COMMITTED_SANDBOX or not path.is_file():
        return None
    wanted = certificate_key(spec, root, k=k, sandbox_name=sandbox_name)
    data = read_certificate(path)
    task_files = wanted["task_files_sha256"]
    if task_files and _recorded_inputs(root, spec.task_id) != {"certificate_sha256": _sha256(data),
                                                                 "made_from": wanted}:
        return None
    stored = certificate_from_json(data)
    made_from = {"spec_sha256": stored.spec_sha256, "task_files_sha256": task_files, "lock_sha256": stored.lock_sha256,
                 "image": stored.image, "image_digest": stored.image_digest, "k": stored.k,
                 "sandbox": COMMITTED_SANDBOX, "gate_version": stored.gate_version,
                 "harness_version": stored.harness_version}
    if (made_from != wanted or stored.task_id != spec.task_id or stored.certificate_version != CERTIFICATE_VERSION
            or stored.to_json() != data):
        return None
    return stored


def inputs_file(root: Path, task_id: str) -> Path:
    """What a committed certificate of a task with code in this repository was made from (a folder of its own:
    ``bench verify results/certificates/`` reads every JSON file beside the certificates as one)."""
    return root / "results" / "certificates" / "inputs" / f"{task_id}.json"


def commit_certificate(spec: TaskSpec, certificate: Certificate, root: Path, *, k: int, sandbox_name: str) -> Path:
    """Write the task's committed certificate and, for a task with code in this repository certified under the
    committed sandbox, the record of the inputs it was made from (removed otherwise: it would name another)."""
    from bench.store.atomic import write_atomic

    data = certificate.to_json()
    path = write_certificate(certificate_file(root, spec.task_id), data)
    record = inputs_file(root, spec.task_id)
    made_from = certificate_key(spec, root, k=k, sandbox_name=sandbox_name)
    if made_from["task_files_sha256"] and sandbox_name == COMMITTED_SANDBOX:
        text = json.dumps({"certificate_sha256": _sha256(data), "made_from": made_from}, indent=1, sort_keys=True)
        if not record.is_file() or record.read_text(encoding="utf-8") != text + "\n":
            write_atomic(record, (text + "\n").encode("utf-8"))
    else:
        record.unlink(missing_ok=True)
    return path


def _recorded_inputs(root: Path, task_id: str) -> dict | None:
    record = inputs_file(root, task_id)
    if not record.is_file():
        return None
    try:
        return json.loads(record.read_text(encoding="utf-8"))
    except ValueError:
        return None


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
