import argparse

import pytest

from bench.cli import image as image_verb
from bench.cli import sandbox as sandbox_verb
from bench.errors import CheckFailed, UsageError
from bench.sandbox import registry
from bench.sandbox.protocol import ExecResult


def _parse(*argv):
    parser = argparse.ArgumentParser(prog="bench")
    sub = parser.add_subparsers(dest="verb")
    sandbox_verb.add_parser(sub)
    image_verb.add_parser(sub)
    return parser.parse_args(argv)


def test_check_prints_one_line_per_case_the_verdict_integrity_table_and_the_tally(capsys):
    from bench.verdict.threat_model import ATTACK_CLASSES

    args = _parse("sandbox", "check", "--backend", "bwrap", "--only", "exit_codes", "--only", "dns_lookup")
    assert args.run(args) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[:3] for line in lines[:2]] == [["PASS", "conformance", "exit_codes:"],
                                                        ["PASS", "attack", "dns_lookup:"]]
    table = lines[2:-1]
    assert [line.split()[0] for line in table if line.split() and line.split()[0] in
            {a.name for a in ATTACK_CLASSES}] == [a.name for a in ATTACK_CLASSES]
    assert lines[-1] == "2 passed, 0 failed"


def test_check_fails_with_check_failed_when_a_case_fails(capsys):
    @registry.register("always-exit-9")
    class Wrong:
        name = "always-exit-9"

        def run(self, request):
            return ExecResult(9, None, False, False, b"", b"", False, False, 0.0, 0.0)

    try:
        args = _parse("sandbox", "check", "--backend", "always-exit-9", "--only", "exit_codes")
        with pytest.raises(CheckFailed, match="1 sandbox case"):
            args.run(args)
    finally:
        registry._registered.pop("always-exit-9")
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("FAIL  conformance exit_codes:") and lines[-1] == "0 passed, 1 failed"


def test_unknown_case_name_is_a_usage_error():
    args = _parse("sandbox", "check", "--only", "no_such_case")
    with pytest.raises(UsageError, match="unknown case"):
        args.run(args)


def test_image_build_reuse_only_prints_the_pinned_digest(capsys):
    from bench.environment.image import image_folder, read_pin
    from bench.environment.image import suite_image

    suite_image()  # builds it when the cache is empty (a fresh CI machine)
    args = _parse("image", "build", "trixie-py313-slim", "--reuse-only")
    assert args.run(args) == 0
    digest = read_pin(image_folder("trixie-py313-slim"))[0]
    assert capsys.readouterr().out == f"trixie-py313-slim {digest}\n"


def test_image_build_flags_are_exclusive():
    with pytest.raises(SystemExit):
        _parse("image", "build", "x", "--update", "--rebuild")
