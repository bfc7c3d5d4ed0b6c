"""The probe-set cache key follows the probe code itself, not only its version number."""

from __future__ import annotations

from bench.probes.committed import code_digest, probe_code_digest


def test_a_probe_set_built_by_other_probe_code_is_never_taken_from_the_cache(tmp_path):
    """Version 21 of the probe sets was once the number of a sweep that was reverted, and the cache still held
    that sweep's sets under the same key: a rebuild without --no-cache read them back as the new version's. The
    key now carries a digest of the probe modules' text, so any change to them misses every set built before."""
    (tmp_path / "generate.py").write_text("LIMIT = 200\n")
    (tmp_path / "generate_test.py").write_text("def test(): pass\n")
    before = code_digest(tmp_path)
    (tmp_path / "generate_test.py").write_text("def test(): assert True\n")
    assert code_digest(tmp_path) == before  # a test is not the code that builds a set
    (tmp_path / "generate.py").write_text("LIMIT = 201\n")
    assert code_digest(tmp_path) != before
    assert len(probe_code_digest()) == 64 and probe_code_digest() != code_digest(tmp_path)
