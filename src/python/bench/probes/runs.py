"""The two sandboxed runs of the probe tier, host side: recording inputs under the tests, and replaying inputs.

Both start ``_probe_runtime.py`` from a read-only folder of their own. What goes in (the targets, the inputs)
arrives through a sealed send channel; what comes out leaves through a receive channel the host drains. A
replay adds the integrity layers of a scored run that apply without pytest: the task's packages and pip are
masked wherever else the environment holds a copy, and every module of the work dir but the candidate's source
files is frozen. The expected outputs never enter the sandbox: the replay sends inputs only, and its outputs
are compared on the host (:mod:`bench.probes.compare`).
"""

from __future__ import annotations

import json
import os
import secrets
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from bench import profile
from bench.sandbox.protocol import Channel, ExecRequest, Limits, Mount, NetworkPolicy

RUNTIME = "_probe_runtime.py"  # read as a resource and run inside the sandbox, never imported here
CODEC = "_probe_codec.py"  # copied beside it: the runtime imports it from its own folder
CALLS = "_probe_calls.py"  # likewise
MAX_RECORD_BYTES = 32 << 20
MAX_OUTPUT_BYTES = 64 << 20


@dataclass(frozen=True)
class Recorded:
    """What the tests passed to the targets under the reference."""

    inputs: tuple[tuple[int, str, str], ...]  # (target index, args, kwargs): encoded, JSON text
    modules: tuple[str, ...]  # per target: the module name it was imported as ("" when never imported)
    calls: tuple[int, ...]  # per target: calls seen
    skipped: tuple[int, ...]  # per target: calls whose arguments could not be written
    reasons: tuple[str, ...]  # per target: why the first skipped call could not be written
    exit_code: int | None
    # calls whose arguments could not all be written, named where they happen: (target index, test, mark,
    # occurrence, args, kwargs), the arguments written where they could be and ``["~"]`` (live) elsewhere
    sites: tuple[tuple[int, str, str, int, str, str], ...] = ()
    # the site of each recorded input, where the call happened in a test: (args, kwargs) -> site
    input_sites: tuple[tuple[tuple[int, str, str], tuple], ...] = ()


@dataclass(frozen=True)
class Replayed:
    """The outputs of one replay, one per input, in order; ``problem`` says why the run fell short."""

    outputs: tuple[str, ...]  # JSON text of each output; "" for an input the run never answered
    problem: str
    wall_seconds: float


def _layout(scratch: Path) -> tuple[Path, str]:
    folder = scratch / "probe"
    folder.mkdir()
    (folder / "runtime.py").write_bytes(Path(__file__).with_name(RUNTIME).read_bytes())
    for name in (CODEC, CALLS):
        (folder / name).write_bytes(Path(__file__).with_name(name).read_bytes())
    os.chmod(folder, 0o755)
    os.chmod(scratch, 0o755)
    return folder, f"/run/bench-probe-{secrets.token_hex(6)}"


@profile.timed("probes")
def record_inputs(where, *, workdir: Path, targets, test_files: Sequence[str], limits: Limits,
                  per_target: int, sites_per_target: int = 0, preferred_tests: Sequence[str] = (),
                  preferred_sites: int = 0) -> Recorded:
    """Run the tests over ``workdir`` with every target wrapped; the arguments of each call, as written, and
    the sites of those whose arguments could not all be written (past ``sites_per_target``, up to
    ``preferred_sites`` more in the tests ``preferred_tests``)."""
    from bench.verdict.run_tests import BASE_ENV, pytest_argv

    config = {"targets": [[t.file, t.qualname] for t in targets], "per_target": per_target,
              "sites_per_target": sites_per_target, "preferred_tests": sorted(preferred_tests),
              "preferred_sites": preferred_sites}
    with tempfile.TemporaryDirectory(prefix="bench-probe-") as scratch:
        folder, inside = _layout(Path(scratch))
        argv = (where.python, f"{inside}/runtime.py", "record") + pytest_argv(where.python, "/dev/null", test_files)[3:]
        request = ExecRequest(
            argv=argv, workdir=workdir, image_root=where.image_root, image_digest=where.image_digest,
            env=tuple(BASE_ENV) + tuple(where.env), limits=limits, network=NetworkPolicy.NONE,
            mounts=tuple(where.mounts) + (Mount(folder, inside),),
            channels=(Channel("probeconfig", send=json.dumps(config).encode()),
                      Channel("probes", receive=MAX_RECORD_BYTES)),
            fixed_addresses=True,  # only the reference runs here: what it records is the same at every build
        )
        result = where.sandbox.run(request)
    received = result.received_from("probes")
    return _recorded(received.data if received else b"", len(targets), result.exit_code)


def _recorded(data: bytes, count: int, exit_code) -> Recorded:
    inputs, modules, calls, skipped, reasons = [], [""] * count, [0] * count, [0] * count, [""] * count
    sites, input_sites = [], []
    for line in data.decode("utf-8", "replace").splitlines():
        try:
            item = json.loads(line)
        except ValueError:
            continue  # a line cut short at the cap
        if isinstance(item, dict):
            for index, tally in item.get("counts", {}).items():
                calls[int(index)], skipped[int(index)], modules[int(index)], reasons[int(index)] = tally[:4]
        elif item and item[0] == "site":
            _, index, test, mark, occurrence, args, kwargs = item
            sites.append((index, test, mark, occurrence, written_text(args), written_text(kwargs)))
        else:
            index, args, kwargs = item[:3]
            inputs.append((index, written_text(args), written_text(kwargs)))
            if len(item) > 3:
                test, mark, occurrence, site_args, site_kwargs = item[3]
                input_sites.append((inputs[-1], (index, test, mark, occurrence, written_text(site_args),
                                                 written_text(site_kwargs))))
    return Recorded(tuple(inputs), tuple(modules), tuple(calls), tuple(skipped), tuple(reasons), exit_code,
                    tuple(sites), tuple(input_sites))


def written_text(encoded) -> str:
    """The canonical JSON text of a written value: what probe sets store and replays are compared by."""
    return json.dumps(encoded, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


@profile.timed("probes")
def replay(where, *, workdir: Path, targets: Sequence[tuple[str, str]], inputs: Sequence[tuple[int, str, str]],
           limits: Limits, seconds_per_call: float, packages: Sequence[str] = (),
           source_files: Sequence[str] = (), content_masks: Sequence[str] = ()) -> Replayed:
    """Call target ``(module, qualname)`` number ``i`` with each input ``(i, args, kwargs)`` in ``workdir``."""
    config = {"targets": [list(t) for t in targets], "seconds_per_call": seconds_per_call,
              "inputs": [[index, json.loads(args), json.loads(kwargs)] for index, args, kwargs in inputs]}
    result, received = _guarded_run(where, workdir, ("replay",), config, limits, packages, source_files,
                                    content_masks)
    outputs, problem = read_outputs(received.data if received else b"", len(inputs))
    return _replayed(result, received, outputs, problem)


@profile.timed("probes")
def replay_in_place(where, *, workdir: Path, targets: Sequence[tuple[str, str]], sites, tests: Sequence[str],
                    count: int, limits: Limits, seconds_per_call: float, packages: Sequence[str] = (),
                    source_files: Sequence[str] = (), content_masks: Sequence[str] = ()) -> Replayed:
    """Run the tests ``tests`` (pytest node ids) over ``workdir`` and answer each site's inputs where it
    happens. ``sites`` holds ``(target index, test, mark, occurrence, ((number, args, kwargs), …))`` with
    targets as ``(file, qualname)``; the numbers run from 0 to ``count - 1``."""
    from bench.verdict.run_tests import pytest_argv

    config = {"targets": [list(t) for t in targets], "seconds_per_call": seconds_per_call,
              "sites": [[index, test, mark, occurrence,
                         [[number, json.loads(args), json.loads(kwargs)] for number, args, kwargs in inputs]]
                        for index, test, mark, occurrence, inputs in sites]}
    argv = ("inplace",) + pytest_argv(where.python, "/dev/null", tests)[3:]
    result, received = _guarded_run(where, workdir, argv, config, limits, packages, source_files, content_masks)
    outputs, problem = read_numbered(received.data if received else b"", count)
    return _replayed(result, received, outputs, problem)


def _guarded_run(where, workdir, argv, config, limits, packages, source_files, content_masks):
    """Run the runtime with ``argv`` under the integrity layers of a scored run that apply without the guard;
    the run's result and what came out of its outputs channel."""
    from bench.verdict.masks import masks_for
    from bench.verdict.readonly_tree import protected_paths
    from bench.verdict.run_tests import BASE_ENV

    with tempfile.TemporaryDirectory(prefix="bench-replay-") as scratch:
        folder, inside = _layout(Path(scratch))
        empty_dir, empty_file = Path(scratch) / "empty", Path(scratch) / "empty-file"
        empty_dir.mkdir()
        empty_file.write_bytes(b"")
        os.chmod(empty_dir, 0o755)
        masks = masks_for(where.mounts, where.image_root, tuple(packages), empty_dir=empty_dir, empty_file=empty_file)
        masks += tuple(Mount(empty_file, path, mask=True) for path in content_masks
                       if path not in {m.sandbox_path for m in masks})
        request = ExecRequest(
            argv=(where.python, f"{inside}/runtime.py") + tuple(argv), workdir=workdir,
            image_root=where.image_root, image_digest=where.image_digest, env=tuple(BASE_ENV) + tuple(where.env),
            limits=limits, network=NetworkPolicy.NONE, mounts=tuple(where.mounts) + (Mount(folder, inside),) + masks,
            channels=(Channel("probeconfig", send=json.dumps(config).encode()),
                      Channel("outputs", receive=MAX_OUTPUT_BYTES)),
            frozen=protected_paths(workdir, source_files, taken=tuple(m.sandbox_path for m in masks)),
        )
        result = where.sandbox.run(request)
    return result, result.received_from("outputs")


def _replayed(result, received, outputs, problem) -> Replayed:
    if received is not None and received.truncated:
        problem = problem or "the replay wrote more than the cap"
    if result.timed_out and not problem:
        problem = "the replay timed out"
    return Replayed(outputs, problem, result.wall_seconds)


def read_numbered(data: bytes, count: int) -> tuple[tuple[str, ...], str]:
    """One output per number from an in-place run's lines, which come in the order the tests meet their sites.
    A line that is not one well-formed answer to a number not yet answered makes the whole run unusable; a
    number with no line was never reached ("")."""
    outputs: list[str] = [""] * count
    for line in data.decode("utf-8", "replace").splitlines():
        try:
            number, output = json.loads(line)
        except (ValueError, TypeError):
            return (), "an in-place output line is malformed"
        if type(number) is not int or not 0 <= number < count or outputs[number] or not isinstance(output, list):
            return (), "in-place outputs repeated or out of range"
        outputs[number] = line[line.index(",") + 1:-1]
    missing = outputs.count("")
    return tuple(outputs), f"{missing} of {count} in-place inputs never reached" if missing else ""


def read_outputs(data: bytes, count: int) -> tuple[tuple[str, ...], str]:
    """One output per input, from the replay's lines. A line that is not one well-formed answer, in order, to
    the next input is not the runtime's: the whole replay is then unusable (``problem`` says why)."""
    outputs: list[str] = []
    for line in data.decode("utf-8", "replace").splitlines():
        try:
            number, output = json.loads(line)
        except (ValueError, TypeError):
            return (), "a replay output line is malformed"
        if number != len(outputs) or not isinstance(output, list) or len(outputs) >= count:
            return (), "replay outputs out of order or repeated"
        raw = line[line.index(",") + 1:-1]  # the runtime writes canonical JSON: the output as _text gives it
        outputs.append(raw if raw.startswith("[") else written_text(output))
    missing = count - len(outputs)
    problem = f"the replay stopped after {len(outputs)} of {count} inputs" if missing else ""
    return tuple(outputs) + ("",) * missing, problem
