"""Committed certificates are gzip files whose content is the certificate's canonical JSON, byte for byte."""

from __future__ import annotations

from bench.gate.certify import certificate_file, read_certificate, write_certificate

DATA = b'{"decision":{"admitted":true,"reason":"admitted"},"task_id":"t"}\n' * 50


def test_a_certificate_file_round_trips_and_is_written_identically_twice(tmp_path):
    path = certificate_file(tmp_path, "t")
    assert path.name == "t.json.gz"
    first = write_certificate(path, DATA).read_bytes()
    assert read_certificate(path) == DATA and len(first) < len(DATA) // 5
    assert write_certificate(path, DATA).read_bytes() == first  # no name or time in the gzip header


def test_a_path_without_gz_gets_plain_json(tmp_path):
    path = write_certificate(tmp_path / "certificate.json", DATA)
    assert path.read_bytes() == DATA == read_certificate(path)
