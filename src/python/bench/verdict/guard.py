"""The run-time layers against verdict forgery, host side: what a guarded test run mounts and what it checks.

A guarded run (every scored candidate; see docs/verdict-integrity.md for which layer stops which attack):

- **read-only tests and configuration** — the task's test files, every ``conftest.py`` and the test-runner
  config files of the work dir are bound read-only over themselves: no code can rewrite them, even through
  raw system calls.
- **the audit guard** — pytest starts from ``_guard_launcher.py`` (in a read-only folder of its own), which adds
  an audit hook before anything of the workspace is imported; a broken rule writes the rule to a marker file
  and SIGKILLs the run. The changed lines of each edited file tell it which calls are the edit's own.
- **canary tests** — a test file with random names (read-only, in the work dir) holds a test that must pass
  and one that must fail. Forgery that makes every test pass, or drops failures from the report, shows.
- **masked vendored copies** — copies of the task's own packages vendored by pip, setuptools or
  pkg_resources, pip itself, ensurepip's bundled wheels and any installed release of the task's packages are
  hidden behind empty read-only binds: the original code is not there to load.
"""

from __future__ import annotations

import difflib
import json
import os
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from bench.sandbox.protocol import Mount

LAUNCHER = "_guard_launcher.py"  # read as a resource and run inside the sandbox, never imported here
CONFIG_NAMES = ("pytest.ini", ".pytest.ini", "tox.ini", "setup.cfg", "pyproject.toml")
CANARY_PASS, CANARY_FAIL = "passed", "failed"


@dataclass(frozen=True)
class GuardedRun:
    """One run's guard: the command prefix, the extra mounts, the canary tests and where the marker is."""

    argv_prefix: tuple[str, ...]
    mounts: tuple[Mount, ...]
    canary_file: str  # work-dir relative
    canaries: tuple[tuple[str, str], ...]  # (test id, the outcome it must have)
    marker_host: Path


def changed_lines(before: Sequence[tuple[str, str]], after: Sequence[tuple[str, str]]) -> dict[str, list[int]]:
    """Per edited file, the 1-based line numbers of the edited text that the edit inserted or replaced."""
    old = dict(before)
    changed: dict[str, list[int]] = {}
    for path, text in after:
        if text == old.get(path, ""):
            continue
        lines: list[int] = []
        matcher = difflib.SequenceMatcher(None, old.get(path, "").splitlines(), text.splitlines(), autojunk=False)
        for tag, _, _, j1, j2 in matcher.get_opcodes():
            if tag in ("replace", "insert"):
                lines.extend(range(j1 + 1, j2 + 1))
        changed[path] = lines
    return changed


def prepare_guard(*, run_dir: Path, guard_host: Path, guard_sandbox: str, report_host: Path, report_sandbox: str,
                  python: str, test_files: Sequence[str], changed: dict[str, list[int]],
                  allowed: Sequence[str] = ()) -> GuardedRun:
    """Lay out the guard of one run: ``guard_host`` (bound read-only at ``guard_sandbox``) gets the launcher
    and its config, the writable report folder the marker file, ``run_dir`` the canary file."""
    token = secrets.token_hex(6)
    canary_file = f"test_bench_canary_{token}.py"
    pass_name, fail_name = f"test_canary_{secrets.token_hex(4)}", f"test_canary_{secrets.token_hex(4)}"
    (run_dir / canary_file).write_text(_canary_source(pass_name, fail_name, token), encoding="utf-8")
    protected = sorted({*test_files, *_runner_files(run_dir)})
    guard_host.mkdir(parents=True, exist_ok=True)
    (guard_host / "launcher.py").write_bytes(Path(__file__).with_name(LAUNCHER).read_bytes())
    marker = report_host / f"marker-{secrets.token_hex(4)}"
    marker.write_bytes(b"")
    os.chmod(marker, 0o666)  # the run's uid writes it through the descriptor the launcher opens first
    config = {"marker": f"{report_sandbox}/{marker.name}", "report": f"{report_sandbox}/junit.xml",
              "protected": protected, "changed": changed, "allowed": sorted(allowed)}
    (guard_host / "config.json").write_text(json.dumps(config, sort_keys=True), encoding="utf-8")
    os.chmod(guard_host, 0o755)
    mounts = [Mount(guard_host, guard_sandbox)]
    mounts += [Mount(run_dir / rel, f"/work/{rel}") for rel in (*protected, canary_file)
               if (run_dir / rel).is_file() and not (run_dir / rel).is_symlink()]
    return GuardedRun(
        argv_prefix=(python, f"{guard_sandbox}/launcher.py", f"{guard_sandbox}/config.json"),
        mounts=tuple(mounts), canary_file=canary_file,
        canaries=((f"{canary_file}::{pass_name}", CANARY_PASS), (f"{canary_file}::{fail_name}", CANARY_FAIL)),
        marker_host=marker,
    )


def violations(guarded: GuardedRun) -> tuple[str, ...]:
    """The rules the audit guard saw broken (read with a bound: the marker is writable by the run)."""
    try:
        with open(guarded.marker_host, "rb") as handle:
            raw = handle.read(64 << 10)
    except OSError:
        return ()
    rules = []
    for line in raw.decode("utf-8", "replace").splitlines():
        try:
            entry = json.loads(line)
            rules.append(f"{entry['rule']} ({entry['event']})")
        except (ValueError, KeyError, TypeError):
            rules.append("marker-garbled")
    return tuple(rules)


def _runner_files(run_dir: Path) -> list[str]:
    """conftest.py files anywhere in the tree and the runner's config files at its root."""
    found = [name for name in CONFIG_NAMES if (run_dir / name).is_file()]
    for parent, dirs, files in os.walk(run_dir):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d not in ("node_modules", "__pycache__")]
        if "conftest.py" in files:
            found.append(os.path.relpath(os.path.join(parent, "conftest.py"), run_dir))
    return found


def _canary_source(pass_name: str, fail_name: str, token: str) -> str:
    return (
        '"""Written by the harness for this run only; its outcomes are checked, never scored."""\n\n\n'
        f"def {pass_name}():\n    assert {token!r}[::-1] == {token[::-1]!r}\n\n\n"
        # pytrace=False: the failure is reported without a traceback to format, the cheapest failure there is.
        f"def {fail_name}():\n    import pytest\n\n    if {token!r} != {token[::-1] + 'x'!r}:\n"
        f"        pytest.fail('this test must fail', pytrace=False)\n"
    )
