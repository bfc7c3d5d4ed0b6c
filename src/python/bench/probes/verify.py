"""The verified tier: a resolved candidate replays the task's probe set in a fresh sandbox, judged on the host.

The candidate's source files go into a fresh copy of the task's pristine tree (nothing its test run wrote
carries over), only the inputs go into the sandbox, and each output is compared with the reference's on the
host (:mod:`bench.probes.compare`). Every probe must agree; the first that does not is named (function, input,
expected, got). A replay that cannot be read (lines out of order, repeated, malformed: the candidate's code
wrote into the channel) or that stops before the last input is a divergence at the first input it did not
answer. A task whose probe set is empty cannot be verified: its status says so, and it never counts as
verified.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

VERIFIED, DIVERGED, NO_PROBES = "verified", "diverged", "no probes"
REPEAT_SLOWER = 4.0  # the time a call has when a divergence is replayed again, as a multiple of the usual
STATUSES = (VERIFIED, DIVERGED, NO_PROBES)


@dataclass(frozen=True)
class Verification:
    status: str  # one of STATUSES
    checked: int  # probes replayed
    diverged: int  # of those, probes whose output differs (or that were never answered)
    divergence: str  # the first divergence, for people; "" unless diverged
    probe_set_sha256: str

    @property
    def verified(self) -> bool:
        return self.status == VERIFIED

    def to_json(self) -> dict:
        return {"status": self.status, "checked": self.checked, "diverged": self.diverged,
                "divergence": self.divergence, "probe_set_sha256": self.probe_set_sha256}

    @classmethod
    def from_json(cls, data: dict) -> Verification:
        return cls(data["status"], data["checked"], data["diverged"], data["divergence"], data["probe_set_sha256"])


def verify(probe_set, reference, sources, scratch: Path, *, limits, source_files, reference_again=None) -> Verification:
    """Replay ``probe_set`` against the candidate whose source files are ``sources`` ((path, text) pairs): the
    inputs replayed on their own, then those answered in place.

    When some probe diverges, ``reference_again()`` (the reference's own source files, if given) replays once
    more: a probe the reference itself no longer answers as it did when the set was made (a value that depends
    on the date, say) decides nothing and is left out, so the reference is never the candidate's false alarm.
    A divergence left must then repeat in a second replay of the candidate: an answer that hangs on the state
    of the process (a file descriptor a stateful target closes, say) is not held against it once."""
    if not probe_set.size:
        return Verification(NO_PROBES, 0, 0, probe_set.note, probe_set.sha256)
    outputs, problem = _answers(probe_set, reference, sources, scratch / "verify", limits, source_files)
    wrong = _wrong(probe_set, outputs)
    if wrong and reference_again is not None:
        again, _ = _answers(probe_set, reference, reference_again(), scratch / "again", limits, source_files)
        stale = set(_wrong(probe_set, again))
        wrong = [i for i in wrong if i not in stale]
        if wrong:  # a divergence must repeat: the candidate replays once more, in a fresh tree of its own, with
            # more time a call: a call the reference answers near the limit (a loop that runs to the last date,
            # 1.9 s of 2) times out on a loaded machine, and a timeout that is only the machine's is no divergence
            repeat, _ = _answers(probe_set, reference, sources, scratch / "repeat", limits, source_files,
                                 slower=REPEAT_SLOWER)
            wrong = [i for i in wrong if i in set(_wrong(probe_set, repeat))]
    if not wrong:
        return Verification(VERIFIED, probe_set.size, 0, "", probe_set.sha256)
    text = describe(probe_set, _all(probe_set)[wrong[0]], outputs[wrong[0]])
    if problem:
        text = f"{problem}; {text}"
    return Verification(DIVERGED, probe_set.size, len(wrong), text, probe_set.sha256)


def _all(probe_set) -> tuple:
    return probe_set.probes + probe_set.in_place


def _answers(probe_set, reference, sources, tree: Path, limits, source_files,
             slower: float = 1.0) -> tuple[tuple[str, ...], str]:
    """One output per probe of the set (replayed, then in place), each run in a fresh copy of the tree with
    ``slower`` times the time a call has, and why a run fell short ("" when neither did)."""
    from bench.probes import in_place
    from bench.probes.probe_set import SECONDS_PER_CALL
    from bench.probes.runs import replay
    from bench.sandbox.cleanup import remove_tree

    outputs: tuple[str, ...] = ()
    problems = []
    for part in ("replay", "in place"):
        probes = probe_set.probes if part == "replay" else probe_set.in_place
        if not probes:
            continue
        reference.tree(tree, sources)
        try:
            if part == "replay":
                result = replay(reference.where, workdir=tree, targets=probe_set.replay_targets(),
                                inputs=[(p.target, p.args, p.kwargs) for p in probes], limits=limits,
                                seconds_per_call=SECONDS_PER_CALL * slower, packages=reference.packages,
                                source_files=source_files, content_masks=reference.content_masks)
            else:
                result = in_place.run(reference, tree, probe_set.targets, probes, tests=probe_set.tests,
                                      limits=limits, seconds_per_call=SECONDS_PER_CALL * slower,
                                      source_files=source_files)
        finally:
            remove_tree(tree)
        outputs += result.outputs or ("",) * len(probes)
        problems += [result.problem] if result.problem else []
    return outputs, "; ".join(problems)


def _wrong(probe_set, outputs) -> list[int]:
    from bench.probes.compare import agree

    return [i for i, (probe, got) in enumerate(zip(_all(probe_set), outputs))
            if probe.expected and not agree(probe.expected, got)]


def describe(probe_set, probe, got: str) -> str:
    from bench.probes.compare import render_call, render_output

    target = probe_set.targets[probe.target]
    where = f", in place in {probe.test}" if hasattr(probe, "test") else ""
    return (f"{target.file}: {render_call(target.qualname, probe.args, probe.kwargs)} ({probe.origin} input{where}): "
            f"expected {render_output(probe.expected)}, got {render_output(got)}")
