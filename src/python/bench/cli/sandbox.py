"""`bench sandbox check [--backend B]`: run the sandbox conformance and attack suite against a backend."""

from __future__ import annotations

import argparse
import sys

EPILOG = """examples:
  bench sandbox check                   the default backend (bwrap, or $BENCH_SANDBOX)
  bench sandbox check --backend docker
  bench sandbox check --only fork_bomb --only dns_lookup

One line per case (PASS/FAIL, kind, name, detail), then the verdict-integrity table (which layer stops
which attack of a model's edit on its own verdict; the red-team suite in tests/tampering proves each row),
then `N passed, M failed`; exit 0 only when M is 0. The suite builds (once) and unpacks the image
trixie-py313-slim.
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("sandbox", help="check a sandbox backend", epilog=EPILOG,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    actions = p.add_subparsers(dest="sandbox_action", metavar="ACTION")
    actions.required = True
    check = actions.add_parser("check", help="run the conformance + attack suite", epilog=EPILOG,
                               formatter_class=argparse.RawDescriptionHelpFormatter)
    check.add_argument("--backend", default=None, help="bwrap | docker (default: $BENCH_SANDBOX or bwrap)")
    check.add_argument("--only", action="append", default=[], metavar="CASE", help="run only these cases")
    check.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from bench.errors import CheckFailed, UsageError
    from bench.sandbox import conformance
    from bench.variables import get

    backend = args.backend or get("BENCH_SANDBOX")
    cases = conformance.all_cases()
    if args.only:
        known = {c.case_name for c in cases}
        unknown = sorted(set(args.only) - known)
        if unknown:
            raise UsageError(f"unknown case(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}")
        cases = tuple(c for c in cases if c.case_name in args.only)
    print(f"bench sandbox check: backend {backend}, {len(cases)} cases", file=sys.stderr)
    with _daemon_for(backend):
        from bench.environment.image import suite_image

        results = conformance.run_suites(backend, suite_image(), cases=cases, progress=_print_case)
    failed = sum(not r.passed and not r.known_failure for r in results)
    passed = sum(r.passed for r in results)
    _print_threat_model()
    print(f"{passed} passed, {failed} failed")
    if failed:
        raise CheckFailed(f"backend {backend}: {failed} sandbox case(s) failed")
    return 0


def _daemon_for(backend: str):
    """The docker backend needs a daemon: the configured one if it answers, else a private one started here."""
    import contextlib

    if backend != "docker":
        return contextlib.nullcontext()
    from bench.sandbox.dockerd import docker_daemon

    return docker_daemon()


def _print_threat_model() -> None:
    from bench.verdict.threat_model import table_lines

    print("\nverdict integrity (docs/verdict-integrity.md):")
    for line in table_lines():
        print(line)
    print()


def _print_case(result) -> None:
    verdict = "PASS" if result.passed else ("XFAIL" if result.known_failure else "FAIL")
    print(f"{verdict:5} {result.kind:11} {result.name}: {_one_line(result.detail)}", flush=True)


def _one_line(text: str, limit: int = 240) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[:limit - 3] + "..."
