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
    """Replay ``probe_set`` against the candidate whose source files are ``sources`` ((path, text) pairs).

    When some probe diverges, ``reference_again()`` (the reference's own source files, if given) replays once
    more: a probe the reference itself no longer answers as it did when the set was made (a value that depends
    on the date, say) decides nothing and is left out, so the reference is never the candidate's false alarm."""
    if not probe_set.probes:
        return Verification(NO_PROBES, 0, 0, probe_set.note, probe_set.sha256)
    result = _replay(probe_set, reference, sources, scratch / "verify", limits, source_files)
    outputs = result.outputs or ("",) * len(probe_set.probes)
    wrong = _wrong(probe_set, outputs)
    if wrong and reference_again is not None:
        again = _replay(probe_set, reference, reference_again(), scratch / "again", limits, source_files)
        stale = set(_wrong(probe_set, again.outputs or ("",) * len(probe_set.probes)))
        wrong = [i for i in wrong if i not in stale]
    if not wrong:
        return Verification(VERIFIED, len(probe_set.probes), 0, "", probe_set.sha256)
    first = probe_set.probes[wrong[0]]
    text = describe(probe_set, first, outputs[wrong[0]])
    if result.problem:
        text = f"{result.problem}; {text}"
    return Verification(DIVERGED, len(probe_set.probes), len(wrong), text, probe_set.sha256)


def _replay(probe_set, reference, sources, tree: Path, limits, source_files):
    from bench.probes.probe_set import SECONDS_PER_CALL
    from bench.probes.runs import replay
    from bench.sandbox.cleanup import remove_tree

    reference.tree(tree, sources)
    try:
        return replay(reference.where, workdir=tree, targets=probe_set.replay_targets(),
                      inputs=[(p.target, p.args, p.kwargs) for p in probe_set.probes], limits=limits,
                      seconds_per_call=SECONDS_PER_CALL, packages=reference.packages, source_files=source_files,
                      content_masks=reference.content_masks)
    finally:
        remove_tree(tree)


def _wrong(probe_set, outputs) -> list[int]:
    from bench.probes.compare import agree

    return [i for i, (probe, got) in enumerate(zip(probe_set.probes, outputs)) if not agree(probe.expected, got)]


def describe(probe_set, probe, got: str) -> str:
    from bench.probes.compare import render_call, render_output

    target = probe_set.targets[probe.target]
    return (f"{target.file}: {render_call(target.qualname, probe.args, probe.kwargs)} ({probe.origin} input): "
            f"expected {render_output(probe.expected)}, got {render_output(got)}")
