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


def test_a_failure_summary_keeps_the_first_line_and_the_cause_at_the_end():
    from bench.gate.certify import failure_summary

    text = "editable install of repo failed (exit code 1):\nObtaining file:///work\n" + "noise\n" * 30 + \
        "  error: subprocess-exited-with-error\nModuleNotFoundError: No module named 'flit_scm'\n"
    summary = failure_summary(text)
    assert summary.startswith("editable install of repo failed (exit code 1): … ")
    assert summary.endswith("ModuleNotFoundError: No module named 'flit_scm'") and "Obtaining" not in summary
    assert failure_summary("x" * 900) == "x" * 600


def test_a_failure_summary_skips_pips_see_above_banner_for_the_cause():
    from bench.gate.certify import failure_summary

    text = "\n".join([
        "editable install of repo failed (exit code 1):",
        "  File \"setup.py\", line 11, in <module>",
        "    from setuptools.command.test import test as TestCommand",
        "ModuleNotFoundError: No module named 'setuptools.command.test'",
        "[end of output]",
        "note: This error originates from a subprocess, and is likely not a problem with pip.",
        "error: metadata-generation-failed",
        "× Encountered error while generating package metadata.",
        "╰─> See above for output.",
        "note: This is an issue with the package mentioned above, not pip.",
        "hint: See above for details.",
    ])
    assert failure_summary(text) == (
        "editable install of repo failed (exit code 1): … File \"setup.py\", line 11, in <module> | "
        "from setuptools.command.test import test as TestCommand | "
        "ModuleNotFoundError: No module named 'setuptools.command.test'")


def test_a_certificate_whose_content_is_unchanged_is_left_untouched_whatever_its_gzip_header(tmp_path):
    """Python 3.9 (Pants' own) and 3.12 write gzip's OS byte as 255 where 3.11 writes 3: `./pants certify` on another
    interpreter must not show every committed certificate as changed when none of their content did."""
    import gzip
    import io
    import os

    path = certificate_file(tmp_path, "t")
    path.parent.mkdir(parents=True)
    other = io.BytesIO()
    with gzip.GzipFile(fileobj=other, mode="wb", mtime=0) as handle:  # OS byte 255, another deflate stream
        handle.write(DATA)
    path.write_bytes(other.getvalue())
    os.utime(path, ns=(1_000_000_000, 1_000_000_000))
    write_certificate(path, DATA)
    assert path.read_bytes() == other.getvalue() and path.stat().st_mtime_ns == 1_000_000_000
    changed = DATA.replace(b"true", b"false")
    write_certificate(path, changed)
    assert read_certificate(path) == changed


def test_a_certificate_is_written_with_one_gzip_header_on_every_python(tmp_path):
    first = write_certificate(certificate_file(tmp_path, "t"), DATA).read_bytes()
    assert first[:10] == b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\x03"  # no name, mtime 0, level 9, Unix


def test_an_unreadable_certificate_file_is_written_anew(tmp_path):
    path = certificate_file(tmp_path, "t")
    path.parent.mkdir(parents=True)
    path.write_bytes(b"not gzip at all")
    write_certificate(path, DATA)
    assert read_certificate(path) == DATA
