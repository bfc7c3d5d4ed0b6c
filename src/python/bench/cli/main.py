"""Entry point of the `bench` command. The only place errors become exit codes and messages.

Exit codes: 0 ok, 1 the thing checked failed, 2 bad input or usage, 3 infrastructure failure.
"""

from __future__ import annotations

import argparse
import signal
import sys
from typing import Sequence

from bench import __version__
from bench.errors import EXIT_INFRA, EXIT_USAGE, BenchError



def verb_modules() -> dict:
    """Verb name → its module. Verb modules are light to import; each imports its heavy work inside run()."""
    from bench.cli import (adequacy, admit, certify, check, goal, image, list_tasks, lock, mine, mutate, pool,
                           probes, prompt, report, sandbox, score, validate, verify, view)

    return {
        "list": list_tasks, "validate": validate, "image": image, "sandbox": sandbox, "lock": lock,
        "certify": certify, "admit": admit, "mine": mine, "mutate": mutate, "pool": pool, "score": score,
        "prompt": prompt, "check": check, "report": report, "view": view, "verify": verify, "goal": goal,
        "adequacy": adequacy, "probes": probes,
    }


EPILOG = """examples:
  bench list kind:synthetic
  bench validate tasks/
"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="bench",
        description="loopcontrolbench: hermetic, reproducible code-repair benchmark.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"bench {__version__}")
    sub = parser.add_subparsers(dest="verb", metavar="VERB")
    sub.required = True
    for module in verb_modules().values():
        module.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse reports usage errors itself
        return EXIT_USAGE if exc.code not in (0, None) else 0
    from bench.cli import signals

    try:
        with signals.handled():
            return int(args.run(args) or 0)
    except BenchError as exc:
        print(f"bench {args.verb}: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:  # Ctrl-C, or SIGTERM (bench.cli.signals): every clean-up on the way has run
        number = signals.received() or signal.SIGINT
        print(f"bench {args.verb}: interrupted ({signal.Signals(number).name})", file=sys.stderr)
        return 128 + number
    except OSError as exc:
        print(f"bench {args.verb}: error: {exc}", file=sys.stderr)
        return EXIT_INFRA


def entry() -> None:
    sys.exit(main())


def score_entry() -> None:
    """`src/python/bench:score`: the score verb as its own program."""
    sys.exit(main(["score", *sys.argv[1:]]))


if __name__ == "__main__":
    entry()
