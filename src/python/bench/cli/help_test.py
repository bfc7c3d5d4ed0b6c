"""Every verb and every option says what it does in --help."""

from __future__ import annotations

import argparse

from bench.cli.main import build_parser


def _subparsers(parser: argparse.ArgumentParser):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield name, sub
                yield from ((f"{name} {n}", s) for n, s in _subparsers(sub))


def test_every_option_of_every_verb_has_help():
    missing = []
    for verb, parser in _subparsers(build_parser()):
        for action in parser._actions:
            if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
                continue
            if not (action.help or "").strip():
                missing.append(f"{verb} {'/'.join(action.option_strings) or action.dest}")
    assert missing == []
