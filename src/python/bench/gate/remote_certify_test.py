from __future__ import annotations

import dataclasses

import pytest

from bench.errors import EnvironmentMismatch
from bench.gate.certify import certify
from bench.gate.remote_certify import check_certificate
from bench.cluster.pins import environment_pins as pins_for
from bench.testing.support import checkout_root, load_task


def _certificate(spec):
    """The gate's certificate for the task here (from the certificate cache when its inputs are unchanged)."""
    return certify(spec, checkout_root(), k=3, sandbox_name="bwrap").certificate


def test_a_certificate_made_in_the_clients_pins_is_accepted():
    spec = load_task("synthetic.caesar_shift")
    check_certificate(_certificate(spec), pins_for(spec, checkout_root()))


def test_a_certificate_from_a_worker_with_another_lock_or_image_is_refused():
    spec = load_task("synthetic.caesar_shift")
    pins = pins_for(spec, checkout_root())
    certificate = _certificate(spec)
    with pytest.raises(EnvironmentMismatch, match="lock_sha256 1{64} on the client"):
        check_certificate(certificate, dataclasses.replace(pins, lock_sha256="1" * 64))
    with pytest.raises(EnvironmentMismatch, match="image_digest sha256:2 on the client"):
        check_certificate(certificate, dataclasses.replace(pins, image_digest="sha256:2"))
    with pytest.raises(EnvironmentMismatch, match="harness_version"):
        check_certificate(dataclasses.replace(certificate, harness_version="0.0.0-other"), pins)
