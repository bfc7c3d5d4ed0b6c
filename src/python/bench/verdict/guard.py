"""The run-time layers against verdict forgery, host side: what a guarded test run mounts and what it checks.

A guarded run (every scored candidate; see docs/verdict-integrity.md for which layer stops which attack):

- **frozen modules** — every Python module of the work dir but the candidate's source files (test files and
  their helpers, ``__init__.py``, ``conftest.py``), the runner's config and empty bytecode caches are immutable
  for the run (:mod:`bench.verdict.readonly_tree`, ``ExecRequest.frozen``): no code can rewrite them, even
  through raw system calls; test data whose content a run changed counts against it.
- **channels, not files** — the guard's configuration comes in, and the broken rules and pytest's report go
  out, through inherited descriptors (``bench.sandbox.protocol.Channel``): nothing in the sandbox's file system
  names them, so nothing there can be opened, linked, renamed or replaced to change them.
- **the audit guard** — pytest starts from ``_guard_launcher.py`` (in a read-only folder of its own), which adds
  an audit hook before anything of the workspace is imported; a broken rule is written to the marker channel
  and the run SIGKILLs itself. The changed lines of each edited file tell it which calls are the edit's own.
- **canary test** — a test file with random names (read-only, in the work dir) holds a test that must fail.
  Forgery that makes every test pass, or drops failures from the report, shows. (A canary that must pass
  would catch only forgery that fails tests, which never makes a run solved; each test a run adds costs as
  much as a test of the task.)
- **masked vendored copies** — copies of the task's own packages vendored by pip, setuptools or
  pkg_resources, pip itself, ensurepip's bundled wheels and any installed release of the task's packages are
  hidden behind empty read-only binds: the original code is not there to load.
"""

from __future__ import annotations

import difflib
import functools
import json
import os
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from bench.sandbox.protocol import Channel, Mount
from bench.verdict.decoys import MAX_DECOYS, Decoys, plant_decoys
from bench.verdict.readonly_tree import RUNNER_CONFIG_NAMES, data_digests, protected_paths

LAUNCHER = "_guard_launcher.py"  # read as a resource and run inside the sandbox, never imported here
CANARY_FAIL = "failed"
MARKER_BYTES = 64 << 10
# Pipes alike to the report and the marker, renumbered at random with them by the launcher: code that writes
# into every pipe it finds writes into these too, and nothing honest ever does.
SPARE_CHANNELS = tuple(f"spare{letter}" for letter in "abcdefg")
SPARE_BYTES = 4 << 10


@dataclass(frozen=True)
class GuardedRun:
    """One run's guard: the command prefix, the extra mounts and channels, and the canary tests."""

    argv_prefix: tuple[str, ...]
    mounts: tuple[Mount, ...]
    channels: tuple[Channel, ...]
    frozen: tuple[str, ...]  # work-dir relative paths no process of the run may change (ExecRequest.frozen)
    canary_file: str  # work-dir relative
    canaries: tuple[tuple[str, str], ...]  # (test id, the outcome it must have)
    decoys: Decoys = Decoys((), ())
    data_before: tuple[tuple[str, str], ...] = ()  # (path, sha256) of the test directories' data files


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


def prepare_guard(*, run_dir: Path, guard_host: Path, guard_sandbox: str, python: str, test_files: Sequence[str],
                  source_files: Sequence[str], changed: dict[str, list[int]],
                  allowed: Sequence[str] = (), taken: Sequence[str] = (), targets: Sequence[str] = (),
                  decoys: bool = True, launcher_code: bytes | None = None) -> GuardedRun:
    """Lay out the guard of one run: ``guard_host`` (bound read-only at ``guard_sandbox``) gets the launcher,
    ``run_dir`` the canary file; the configuration travels in a channel, and everything in the work dir but
    the source files is bound read-only (``taken``: sandbox paths other mounts cover)."""
    token = secrets.token_hex(6)
    canary_file = f"test_bench_canary_{token}.py"
    fail_name = f"test_canary_{secrets.token_hex(4)}"
    (run_dir / canary_file).write_text(_canary_source(fail_name, token), encoding="utf-8")
    decoys = plant_decoys(run_dir, [t for t in targets if t.split("::", 1)[0] in test_files],
                          limit=MAX_DECOYS if decoys else 0)
    protected = sorted({*test_files, *_runner_files(run_dir)})
    guard_host.mkdir(parents=True, exist_ok=True)
    # The launcher's bytecode where the task's interpreter compiled it (bench.verdict.launcher_code), else its text.
    launcher = "launcher.pyc" if launcher_code else "launcher.py"
    (guard_host / launcher).write_bytes(launcher_code or launcher_source())
    os.chmod(guard_host, 0o755)
    outgoing = ("marker", "report", *SPARE_CHANNELS)
    config = {"protected": protected, "changed": changed, "allowed": sorted(allowed), "outgoing": outgoing}
    channels = (Channel("guard", send=json.dumps(config, sort_keys=True).encode("utf-8")),
                Channel("marker", receive=MARKER_BYTES),
                *(Channel(name, receive=SPARE_BYTES) for name in SPARE_CHANNELS))
    mounts = (Mount(guard_host, guard_sandbox),)
    return GuardedRun(
        argv_prefix=(python, f"{guard_sandbox}/{launcher}"), mounts=mounts, channels=channels,
        frozen=protected_paths(run_dir, source_files, taken=taken),
        canary_file=canary_file, decoys=decoys, data_before=tuple(sorted(data_digests(run_dir, test_files).items())),
        canaries=((f"{canary_file}::{fail_name}", CANARY_FAIL),),
    )


@functools.lru_cache(maxsize=1)
def launcher_source() -> bytes:
    return Path(__file__).with_name(LAUNCHER).read_bytes()


def spare_findings(received) -> tuple[str, ...]:
    """A spare channel that received anything: the code under test wrote into pipes it was not given."""
    return tuple(f"spare-channel-written ({r.name})" for r in received if r.name in SPARE_CHANNELS and r.data)


def violations(marker: bytes) -> tuple[str, ...]:
    """The rules the audit guard saw broken, from what it wrote into the marker channel (the code under test
    can write there too: a line that is not the guard's is a broken rule of its own)."""
    rules = []
    for line in marker.decode("utf-8", "replace").splitlines():
        try:
            entry = json.loads(line)
            rules.append(f"{entry['rule']} ({entry['event']})")
        except (ValueError, KeyError, TypeError):
            rules.append("marker-garbled")
    return tuple(rules)


def _runner_files(run_dir: Path) -> list[str]:
    """conftest.py files anywhere in the tree and the runner's config files at its root."""
    found = [name for name in RUNNER_CONFIG_NAMES if (run_dir / name).is_file()]
    for parent, dirs, files in os.walk(run_dir):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d not in ("node_modules", "__pycache__")]
        if "conftest.py" in files:
            found.append(os.path.relpath(os.path.join(parent, "conftest.py"), run_dir))
    return found


def _canary_source(fail_name: str, token: str) -> str:
    return (
        # A comment, not a docstring: pytest 7's assertion rewriting reads a module docstring through ast's
        # deprecated ``.s`` on Python 3.12+, and a project that turns warnings into errors (werkzeug) then fails
        # to collect the canary, so every run ends with exit 2 (werkzeug-2709's honest fix).
        "# Written by the harness for this run only; its outcome is checked, never scored."
        "\n\n\n"
        # pytrace=False: the failure is reported without a traceback to format, the cheapest failure there is.
        f"def {fail_name}():\n    import pytest\n\n    if {token!r} != {token[::-1] + 'x'!r}:\n"
        f"        pytest.fail('this test must fail', pytrace=False)\n"
    )
