"""A task's probe set: inputs of the functions its reference change touches, with the reference's outputs.

Made in five steps, every one in the sandbox but the generation:

1. the reference tree (the task's pristine tree with the reference's source files) runs its certified test
   files with the targets (:mod:`bench.probes.targets`) wrapped: each call's arguments, as written on entry,
   at most ``PER_TARGET`` distinct ones per target; calls whose arguments cannot be written are counted;
2. Hypothesis generates calls around the observed ones (:mod:`bench.probes.generate`);
3. the reference replays every input in a fresh copy of the tree, twice; an input is kept when both replays
   answered it alike with a return or a raise that can be written (a timeout, an argument that cannot be
   rebuilt, an output that cannot be written, or two different answers drop it, and the drop is counted);
4. step 3 repeats on what was kept until a round keeps everything (at most ``ROUNDS``): a function with state
   carried between calls answers the kept sequence as it will be replayed;
5. calls whose arguments could not all be written are probed in place (:mod:`bench.probes.in_place`): at the
   call itself, in a fresh run of its test, with the arguments that could be written varied.

The inputs are replayed in an order fixed by a hash of each (not the order the tests made them), so a wrong fix
that counts calls meets other inputs at the counts it knows.

The set is canonical JSON, so its sha256 names it; the same inputs (certificate, Hypothesis version, this
module's :data:`PROBE_VERSION`) make the same bytes.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from dataclasses import dataclass
from pathlib import Path

from bench.probes._probe_calls import DREW as DRAWN
from bench.probes.in_place import PREFERRED_SITES, RECORDED_SITES, InPlaceProbe

PROBE_VERSION = "28"
PER_TARGET = 150  # observed calls kept per target
MAX_PROBES = 1200  # per task
ROUNDS = 4
SECONDS_PER_CALL = 2.0
KEPT_KINDS = ("return", "raise")


@dataclass(frozen=True)
class ProbeTarget:
    file: str
    qualname: str
    module: str  # the name the tests imported it as; "" when they never did
    calls: int  # calls seen under the tests
    skipped: int  # of those, calls whose arguments could not be written
    skip_reason: str = ""  # why the first of them could not be


@dataclass(frozen=True)
class Probe:
    target: int
    args: str  # written form, JSON text
    kwargs: str
    origin: str  # "observed" | "generated"
    expected: str  # the reference's output, JSON text


@dataclass(frozen=True)
class ProbeSet:
    task_id: str
    version: str
    targets: tuple[ProbeTarget, ...]
    probes: tuple[Probe, ...]
    dropped: tuple[tuple[str, int], ...]  # (reason, inputs dropped for it)
    note: str = ""  # why the set is empty, when it is
    in_place: tuple[InPlaceProbe, ...] = ()
    tests: tuple[str, ...] = ()  # the test files the in-place probes run, as the recording ran them

    def to_json(self) -> dict:
        return {"task_id": self.task_id, "version": self.version, "note": self.note,
                "targets": [[t.file, t.qualname, t.module, t.calls, t.skipped, t.skip_reason] for t in self.targets],
                "probes": [[p.target, p.args, p.kwargs, p.origin, p.expected] for p in self.probes],
                "in_place": [p.to_json() for p in self.in_place], "tests": list(self.tests),
                "dropped": [list(d) for d in self.dropped]}

    @classmethod
    def from_json(cls, data: dict) -> ProbeSet:
        return cls(data["task_id"], data["version"], tuple(ProbeTarget(*t) for t in data["targets"]),
                   tuple(Probe(*p) for p in data["probes"]), tuple(tuple(d) for d in data["dropped"]),
                   data.get("note", ""), tuple(InPlaceProbe(*p) for p in data.get("in_place", ())),
                   tuple(data.get("tests", ())))

    def canonical(self) -> bytes:
        from bench.store.canonical import canonical_json

        return canonical_json(self.to_json())

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.canonical()).hexdigest()

    def count(self, origin: str) -> int:
        return sum(p.origin == origin for p in self.checked)

    @property
    def checked(self) -> tuple:
        """The inputs whose answers are compared: every replayed one, and those in place the reference answered
        alike (the others are sent only so that the calls after them at their site meet the same state)."""
        return self.probes + tuple(p for p in self.in_place if p.checked)

    @property
    def size(self) -> int:
        """Every compared input of the set: replayed on their own and in place."""
        return len(self.checked)

    def replay_targets(self) -> tuple[tuple[str, str], ...]:
        return tuple((t.module, t.qualname) for t in self.targets)


@dataclass(frozen=True)
class Reference:
    """Where the reference runs: the environment, the pristine tree and the reference's source texts."""

    where: object  # bench.verdict.run_tests.RunEnvironment
    pristine: Path
    sources: tuple[tuple[str, str], ...]  # (path, text) of the reference's source files
    packages: tuple[str, ...] = ()  # the task's top-level packages, masked elsewhere in the environment
    content_masks: tuple[str, ...] = ()

    def tree(self, dest: Path, sources=None) -> Path:
        """A fresh copy of the pristine tree holding ``sources`` (the reference's by default)."""
        shutil.copytree(self.pristine, dest, symlinks=True)
        for path, text in self.sources if sources is None else sources:
            (dest / path).parent.mkdir(parents=True, exist_ok=True)
            (dest / path).write_text(text, encoding="utf-8")
        return dest


def build(spec, reference: Reference, scratch: Path, *, test_limits, replay_limits, public_api: bool) -> ProbeSet:
    from bench.probes.generate import generate
    from bench.probes.runs import record_inputs
    from bench.probes.targets import targets_of
    from bench.sandbox.cleanup import remove_tree

    fixed = reference.tree(scratch / "reference")
    try:
        targets = targets_of(spec, fixed, reference.pristine, public_api=public_api)
        if not targets:
            return ProbeSet(spec.task_id, PROBE_VERSION, (), (), (), "no function holds the reference change")
        recorded = record_inputs(reference.where, workdir=fixed, targets=targets, test_files=spec.test_files,
                                 limits=test_limits, per_target=PER_TARGET, sites_per_target=RECORDED_SITES,
                                 preferred_tests=spec.fail_to_pass, preferred_sites=PREFERRED_SITES)
    finally:
        remove_tree(fixed)
    probe_targets = tuple(ProbeTarget(t.file, t.qualname, recorded.modules[i], recorded.calls[i], recorded.skipped[i],
                                      recorded.reasons[i]) for i, t in enumerate(targets))
    inputs: list[tuple[int, str, str, str]] = []
    dropped: dict[str, int] = {}
    for index, target in enumerate(probe_targets):
        if not target.module:
            continue
        observed = [(a, k) for i, a, k in recorded.inputs if i == index]
        inputs += [(index, a, k, "observed") for a, k in observed]
        source = dict(reference.sources).get(target.file, "")
        kin = [(a, k) for i, a, k in recorded.inputs if i != index and _kin(probe_targets[i], target)]
        try:
            generated = generate(observed, method="." in target.qualname, source=source, qualname=target.qualname,
                                 kin=kin)
        except Exception as exc:  # noqa: BLE001 - Hypothesis refusing a shape costs this target its generated inputs
            dropped[f"generation failed: {type(exc).__name__}"] = dropped.get(
                f"generation failed: {type(exc).__name__}", 0) + 1
            generated = []
        inputs += [(index, a, k, "generated") for a, k in generated]
    # Replayed in an order of their own, not the tests': a fix that answers by call count ("the third call
    # returns True") then meets another input at that count.
    inputs.sort(key=lambda item: hashlib.sha256(f"{spec.task_id}|{item[0]}|{item[1]}|{item[2]}".encode()).hexdigest())
    if len(inputs) > MAX_PROBES:
        dropped["over the per-task cap"] = len(inputs) - MAX_PROBES
        inputs = _spread(inputs, MAX_PROBES)
    unbuilt: list = []
    probes = _settle(spec, reference, probe_targets, inputs, scratch, replay_limits, dropped, unbuilt)
    in_place = _in_place(spec, reference, probe_targets, recorded, unbuilt, scratch, replay_limits, dropped)
    note = "" if probes or in_place else _empty_note(probe_targets, recorded)
    return ProbeSet(spec.task_id, PROBE_VERSION, probe_targets, probes, tuple(sorted(dropped.items())), note,
                    in_place, tuple(spec.test_files) if in_place else ())


def _kin(other: ProbeTarget, target: ProbeTarget) -> bool:
    """Whether ``other``'s observed calls lend ``target`` their values (:func:`bench.probes.generate.generate`'s
    ``kin``): two functions of one file, or two methods of one class, whose places mean alike more often than
    not (a maze, a grid, a cache's key)."""
    return other.file == target.file and other.qualname.rpartition(".")[0] == target.qualname.rpartition(".")[0]


def _in_place(spec, reference: Reference, targets, recorded, unbuilt, scratch: Path, limits, dropped: dict):
    """The in-place probes: at the calls whose arguments could not all be written, and at those of the observed
    calls the replay could not build again (``unbuilt``: an argument of a class a test module defines)."""
    from bench.probes import in_place
    from bench.probes.generate import generate

    site_of = dict(recorded.input_sites)
    sites = [site for site in recorded.sites if targets[site[0]].module]
    sites += [site_of[item] for item in unbuilt if item in site_of]
    probes = in_place.candidates(targets, sites, dict(reference.sources), generate=generate, dropped=dropped,
                                 preferred=spec.fail_to_pass)
    return in_place.settle(reference, targets, probes, scratch, tests=spec.test_files, limits=limits,
                           seconds_per_call=SECONDS_PER_CALL, source_files=spec.source_files, dropped=dropped,
                           drop_reason=_drop_reason)


def _spread(inputs: list, cap: int) -> list:
    """At most ``cap`` inputs, taken evenly over the targets (round robin, in order)."""
    by_target: dict[int, list] = {}
    for item in inputs:
        by_target.setdefault(item[0], []).append(item)
    chosen: list = []
    while len(chosen) < cap and any(by_target.values()):
        for queue in by_target.values():
            if queue and len(chosen) < cap:
                chosen.append(queue.pop(0))
    place = {id(item): at for at, item in enumerate(inputs)}
    return sorted(chosen, key=lambda item: place[id(item)])


VARIES = "the reference answers it differently each time"


def _settle(spec, reference: Reference, targets, inputs, scratch: Path, limits, dropped: dict,
            unbuilt: list) -> tuple[Probe, ...]:
    """The inputs the reference answers alike, round after round; the observed inputs it could not build
    again are added to ``unbuilt`` as ``(target, args, kwargs)``."""
    from bench.probes.runs import replay
    from bench.sandbox.cleanup import remove_tree

    current = list(inputs)
    earlier: dict[tuple, str] = {}  # each kept input's answer so far, masked where a round found it varying
    for _ in range(ROUNDS):
        answers = []
        for attempt in range(2):
            tree = reference.tree(scratch / f"replay{attempt}")
            try:
                answers.append(replay(reference.where, workdir=tree,
                                      targets=tuple((t.module, t.qualname) for t in targets),
                                      inputs=[(i, a, k) for i, a, k, _ in current], limits=limits,
                                      seconds_per_call=SECONDS_PER_CALL, packages=reference.packages,
                                      source_files=spec.source_files, content_masks=reference.content_masks))
            finally:
                remove_tree(tree)
        kept = []
        for item, first, second in zip(current, answers[0].outputs, answers[1].outputs):
            answer, reason = _settled(first, second, earlier.get(item))
            if reason:
                dropped[reason] = dropped.get(reason, 0) + 1
                if item[3] == "observed" and first.startswith('["unbuildable"'):
                    unbuilt.append(item[:3])
            else:
                kept.append((item, answer))
        earlier = dict(kept)
        if len(kept) == len(current):
            return tuple(Probe(i, a, k, origin, out) for (i, a, k, origin), out in kept)
        current = [item for item, _ in kept]
    dropped["unsettled after repeated replays"] = len(current)
    return ()


def _settled(first: str, second: str, earlier: str | None) -> tuple[str, str]:
    """The reference's answer to keep for one input, and why none is kept ("" when one is): two answers that
    differ in some values only keep the rest (``compare.masked``), and so does an answer that differs so from
    the one an earlier round kept."""
    from bench.probes.compare import masked

    reason = _drop_reason(first, second)
    answer = first
    if reason == VARIES:
        answer = masked(first, second)
        reason = "" if answer else VARIES
    if not reason and earlier is not None and earlier != answer:
        answer = masked(earlier, answer)
        reason = "" if answer else VARIES
    return answer, reason


DREW = "the reference draws on the random module's generator"


def _drop_reason(first: str, second: str) -> str:
    """Why the reference's two answers to one input settle nothing ("" when they do). A call that moved the
    random module's generator is dropped even where its two answers agree: with few outcomes they agree by
    chance (a random choice of three items agreed in two runs, and the candidate's run drew another)."""
    if not first or not second:
        return "the reference's replay stopped before it"
    answer = json.loads(first)
    if answer[-1] == DRAWN or json.loads(second)[-1] == DRAWN:
        return DREW
    if first != second:
        return VARIES
    return "" if answer[0] in KEPT_KINDS else f"the reference's answer: {answer[0]}"


def _empty_note(targets, recorded) -> str:
    if not any(t.module for t in targets):
        if recorded.exit_code is None:  # killed before it wrote what it saw: nothing is known of the imports
            return "the tests did not finish under the recorder (a limit of time or memory killed them)"
        return "the tests never imported a module holding a target"
    if not any(t.calls for t in targets):
        return "the tests never called a target"
    if not recorded.inputs and not recorded.sites:
        return "no call's arguments could be written"
    return "no input answered alike by the reference twice"


def read(raw: bytes) -> ProbeSet:
    return ProbeSet.from_json(json.loads(raw))
