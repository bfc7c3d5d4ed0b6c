"""Scoring grades against the committed certificate while every input it was made from is unchanged."""

from __future__ import annotations

import dataclasses
import hashlib

import pytest

from bench.gate import certify as certify_module
from bench.gate.certify import certificate_file, certify, read_certificate
from bench.gate.committed_certificate import committed_certificate
from bench.spec.load import discover, load_all
from bench.testing.support import checkout_root

TASK = "mutation.toolz.1.0.0.061eb6ff"  # its certificate is the one committed file this test's target carries


@pytest.fixture()
def spec():
    root = checkout_root()
    return next(s for s in load_all(discover(root)) if s.task_id == TASK)


def test_the_committed_certificate_is_taken_byte_for_byte_when_its_inputs_match(spec):
    root = checkout_root()
    stored = committed_certificate(spec, root, k=3, sandbox_name="bwrap")
    assert stored is not None
    committed = read_certificate(certificate_file(root, TASK))
    assert stored.to_json() == committed
    assert stored.sha256 == hashlib.sha256(committed).hexdigest()


@pytest.mark.parametrize("change", ["spec", "k", "sandbox", "harness"])
def test_a_changed_input_means_certifying_again(spec, change, monkeypatch):
    root = checkout_root()
    k, sandbox = 3, "bwrap"
    if change == "spec":
        spec = dataclasses.replace(spec, raw={**spec.raw, "test_files": [*spec.raw["test_files"], "tests/other.py"]})
    elif change == "k":
        k = 5
    elif change == "sandbox":
        sandbox = "docker"
    else:
        monkeypatch.setattr("bench.gate.certify.__version__", "0.0.0-other")
    assert committed_certificate(spec, root, k=k, sandbox_name=sandbox) is None


def test_a_synthetic_task_is_always_certified_here():
    root = checkout_root()
    synthetic = next(s for s in load_all(discover(root)) if s.kind == "synthetic")
    assert committed_certificate(synthetic, root, k=3, sandbox_name="bwrap") is None


def test_scoring_on_an_empty_cache_grades_against_the_committed_certificate(spec, tmp_path, monkeypatch):
    """A fresh machine: nothing cached. Scoring takes the committed certificate and runs no test for it; the
    gate's own paths (admission, ``bench certify``, ``bench verify`` of certificates) still certify."""
    root = checkout_root()
    monkeypatch.setenv("BENCH_CACHE_DIR", str(tmp_path / "cache"))

    def no_run(*args, **kwargs):
        raise AssertionError("certified again although the committed certificate matches")

    monkeypatch.setattr(certify_module, "_certify_uncached", no_run)
    outcome = certify(spec, root, k=3, sandbox_name="bwrap", committed=True)
    assert outcome.certificate.to_json() == read_certificate(certificate_file(root, TASK))
    with pytest.raises(AssertionError, match="certified again"):
        certify(spec, root, k=3, sandbox_name="bwrap")  # the gate's own paths do not take it
    with pytest.raises(AssertionError, match="certified again"):
        certify(spec, root, k=3, sandbox_name="bwrap", use_cache=False, committed=True)


def test_the_committed_certificate_wins_over_one_this_machine_cached(spec, tmp_path, monkeypatch):
    """A certificate certified here from the same inputs may have drifted (a flaky test, a clock in an id):
    scoring still grades against the committed one."""
    from bench.gate.certify import certificate_from_json, certificate_key
    from bench.store.action_cache import ActionCache

    root = checkout_root()
    monkeypatch.setenv("BENCH_CACHE_DIR", str(tmp_path / "cache"))
    committed = read_certificate(certificate_file(root, TASK))
    drifted = dataclasses.replace(certificate_from_json(committed), runs=())
    cache = ActionCache("certificates")
    cache.put(cache.key(certificate_key(spec, root, k=3, sandbox_name="bwrap")), drifted.to_json())
    assert certify(spec, root, k=3, sandbox_name="bwrap").certificate == drifted
    assert certify(spec, root, k=3, sandbox_name="bwrap", committed=True).certificate.to_json() == committed
