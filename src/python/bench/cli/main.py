"""Entry point of the `bench` command. The only place errors become exit codes and messages.

Exit codes: 0 ok, 1 the thing checked failed, 2 bad input or usage, 3 infrastructure failure; 128 + N when
stopped by signal N (130 Ctrl-C, 143 SIGTERM, 141 when the reader of stdout went away: `bench list | head -1`).
"""

from __future__ import annotations

import argparse
import os
import select
import signal
import sys
from pathlib import Path
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
            code = int(args.run(args) or 0)
            sys.stdout.flush()  # a reader that went away shows here, not in the interpreter's last flush
            return code
    except BrokenPipeError as exc:
        if stdout_reader_gone():  # `bench list | head -1`: the reader has what it wanted; say nothing
            return quiet_broken_pipe()
        print(f"bench {args.verb}: error: {exc}", file=sys.stderr)
        return EXIT_INFRA
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
    finally:
        _write_profile()


def _write_profile() -> None:
    """BENCH_PROFILE: where the command's time went (bench.profile), written whatever the outcome."""
    from bench.variables import get

    path = get("BENCH_PROFILE")
    if path:
        import json

        from bench import profile
        from bench.store.atomic import write_atomic

        write_atomic(Path(path), (json.dumps(profile.snapshot(), indent=1, sort_keys=True) + "\n").encode())


def stdout_reader_gone() -> bool:
    """Whether stdout is a pipe whose reading end is closed (poll reports an error on its writing end); a
    broken pipe elsewhere (a child process's stdin) is a failure like any other."""
    try:
        poller = select.poll()
        poller.register(sys.stdout.fileno(), select.POLLOUT)
        return any(events & select.POLLERR for _, events in poller.poll(0))
    except (AttributeError, OSError, ValueError):  # no poll, or stdout is not a file descriptor
        return False


def quiet_broken_pipe() -> int:
    """Exit as a program killed by SIGPIPE reports it (128 + 13), with nothing on stderr: stdout now points at
    /dev/null so the interpreter's final flush of what is still buffered cannot fail again."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return 128 + signal.SIGPIPE


def entry() -> None:
    sys.exit(main())


def score_entry() -> None:
    """`src/python/bench:score`: the score verb as its own program."""
    sys.exit(main(["score", *sys.argv[1:]]))


if __name__ == "__main__":
    entry()
