"""Deriving fail-to-pass, pass-to-pass and flaky sets from K base runs and K fix runs, and the gate's decision.

Pure functions over run summaries, so every rule is unit-tested without a sandbox.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

PASS = "passed"
FAILS = ("failed", "error")
NOT_RUN = ("skipped", "xfailed", "missing")


@dataclass(frozen=True)
class RunSummary:
    side: str  # "base" | "fix"
    index: int
    exit_code: int | None
    timed_out: bool
    results: tuple[tuple[str, str], ...]  # (test id, outcome), sorted
    collection_errors: tuple[str, ...]
    had_report: bool
    # The sandbox killed the run for its memory. Last, with a default, and left out of a certificate's JSON
    # while False (see bench.gate.certify), so certificates of runs without an OOM kill keep their bytes.
    oom_killed: bool = False

    def outcome_of(self, test_id: str) -> str:
        return dict(self.results).get(test_id, "missing")


@dataclass(frozen=True)
class GateSets:
    fail_to_pass: tuple[str, ...]
    pass_to_pass: tuple[str, ...]
    flaky: tuple[str, ...]  # outcome differed between runs of the same side: quarantined
    baseline_failing: tuple[str, ...]  # fail on the fix side every time: the environment's, excluded
    skipped_targets: tuple[str, ...]  # failed at base but skipped/xfailed with the fix


@dataclass(frozen=True)
class Decision:
    admitted: bool
    reason: str  # "admitted" or the first drop reason


def derive_sets(runs: Iterable[RunSummary]) -> GateSets:
    runs = tuple(runs)
    base = [r for r in runs if r.side == "base"]
    fix = [r for r in runs if r.side == "fix"]
    ids = sorted({t for r in runs for t, _ in r.results})
    f2p, p2p, flaky, baseline, skipped = [], [], [], [], []
    for test_id in ids:
        base_outcomes = {r.outcome_of(test_id) for r in base}
        fix_outcomes = {r.outcome_of(test_id) for r in fix}
        if len(_classes(base_outcomes)) > 1 or len(_classes(fix_outcomes)) > 1:
            flaky.append(test_id)
        elif base_outcomes <= set(FAILS) and fix_outcomes == {PASS}:
            f2p.append(test_id)
        elif base_outcomes == {PASS} and fix_outcomes == {PASS}:
            p2p.append(test_id)
        elif fix_outcomes <= set(FAILS):
            baseline.append(test_id)
        elif base_outcomes <= set(FAILS) and fix_outcomes <= set(NOT_RUN):
            skipped.append(test_id)
    return GateSets(tuple(f2p), tuple(p2p), tuple(flaky), tuple(baseline), tuple(skipped))


def _classes(outcomes: set[str]) -> set[str]:
    """Failed and error are one class (both "not passing"); any other difference is a flip."""
    return {"fail" if o in FAILS else o for o in outcomes}


def decide(
    runs: Iterable[RunSummary],
    sets: GateSets,
    *,
    claimed_fail_to_pass: tuple[str, ...] = (),
    max_targets: int | None = None,
) -> Decision:
    """The gate's decision; a drop of a task with a run killed for its memory says so (``oom_killed:<the
    reason it would have had>``): what an OOM kill leaves looks like a collection failure or failing tests."""
    runs = tuple(runs)
    decision = _decide(runs, sets, claimed_fail_to_pass=claimed_fail_to_pass, max_targets=max_targets)
    if decision.admitted or decision.reason == "timeout" or not any(r.oom_killed for r in runs):
        return decision
    return Decision(False, f"oom_killed:{decision.reason}")


def _decide(runs: tuple[RunSummary, ...], sets: GateSets, *, claimed_fail_to_pass: tuple[str, ...],
            max_targets: int | None) -> Decision:
    fix = [r for r in runs if r.side == "fix"]
    base = [r for r in runs if r.side == "base"]
    if any(r.timed_out for r in runs):
        return Decision(False, "timeout")
    if any(not r.had_report or r.collection_errors for r in fix):
        return Decision(False, "collection_failed")
    if any(not r.had_report for r in base):
        return Decision(False, "collection_failed_at_base")
    if any(r.collection_errors for r in base):
        return Decision(False, "collection_failed_at_base")
    claimed = set(claimed_fail_to_pass)
    if claimed & set(sets.flaky):
        return Decision(False, "flaky_target")
    if claimed & set(sets.skipped_targets) or (sets.skipped_targets and not sets.fail_to_pass):
        return Decision(False, "target_skipped")
    if not sets.fail_to_pass:
        return Decision(False, "nothing_flips")
    if claimed and not claimed <= set(sets.fail_to_pass):
        missing = sorted(claimed - set(sets.fail_to_pass))
        return Decision(False, f"claimed_target_not_certified:{missing[0]}")
    if max_targets is not None and len(sets.fail_to_pass) > max_targets:
        return Decision(False, "too_many_targets")
    return Decision(True, "admitted")
