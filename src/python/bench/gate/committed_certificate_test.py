"""Scoring grades against the committed certificate while every input it was made from is unchanged."""

from __future__ import annotations

import dataclasses
import hashlib
import json

import pytest

from bench.gate import certify as certify_module
from bench.gate.certify import certificate_file, certify, read_certificate
from bench.gate.committed_certificate import committed_certificate
from bench.spec.load import discover, load_all
from bench.testing.support import checkout_root

TASK = "mutation.toolz.1.0.0.061eb6ff"  # the one library task whose certificate this test's target carries
SYNTHETIC = "synthetic.caesar_shift"  # its folder is an input; results/certificates/inputs/ records it


def _load(task_id: str):
    return next(s for s in load_all(discover(checkout_root())) if s.task_id == task_id)


@pytest.fixture()
def spec():
    return _load(TASK)


@pytest.fixture()
def synthetic():
    return _load(SYNTHETIC)


@pytest.mark.parametrize("task_id", [TASK, SYNTHETIC])
def test_the_committed_certificate_is_taken_byte_for_byte_when_its_inputs_match(task_id):
    root = checkout_root()
    stored = committed_certificate(_load(task_id), root, k=3, sandbox_name="bwrap")
    assert stored is not None
    committed = read_certificate(certificate_file(root, task_id))
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


def test_a_changed_task_folder_means_certifying_a_synthetic_task_again(synthetic, monkeypatch):
    root = checkout_root()
    monkeypatch.setattr("bench.gate.certify.task_files_digest", lambda spec, root: "0" * 64)
    assert committed_certificate(synthetic, root, k=3, sandbox_name="bwrap") is None


def test_a_synthetic_certificate_without_its_inputs_record_is_certified_again(synthetic, tmp_path, monkeypatch):
    root = checkout_root()
    monkeypatch.setattr("bench.gate.committed_certificate.inputs_file", lambda root, task_id: tmp_path / "none")
    assert committed_certificate(synthetic, root, k=3, sandbox_name="bwrap") is None


def test_committing_a_certificate_records_the_task_folder_it_was_made_from(synthetic, tmp_path, monkeypatch):
    from bench.gate import committed_certificate as module
    from bench.gate.certify import certificate_from_json, certificate_key

    root = checkout_root()
    monkeypatch.setattr(module, "certificate_file", lambda root, task_id: tmp_path / f"{task_id}.json.gz")
    monkeypatch.setattr(module, "inputs_file", lambda root, task_id: tmp_path / "inputs" / f"{task_id}.json")
    certificate = certificate_from_json(read_certificate(certificate_file(root, SYNTHETIC)))
    module.commit_certificate(synthetic, certificate, root, k=3, sandbox_name="bwrap")
    record = json.loads((tmp_path / "inputs" / f"{SYNTHETIC}.json").read_text())
    assert record == {"certificate_sha256": hashlib.sha256(certificate.to_json()).hexdigest(),
                      "made_from": certificate_key(synthetic, root, k=3, sandbox_name="bwrap")}
    assert record["made_from"]["task_files_sha256"]
    assert read_certificate(tmp_path / f"{SYNTHETIC}.json.gz") == certificate.to_json()
    module.commit_certificate(synthetic, certificate, root, k=3, sandbox_name="docker")
    assert not (tmp_path / "inputs" / f"{SYNTHETIC}.json").exists()  # it would name inputs scoring never takes


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
