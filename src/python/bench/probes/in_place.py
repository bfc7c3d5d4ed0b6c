"""In-place probes: inputs answered where a call happens, for calls that cannot be replayed on their own.

Many of the calls a task's tests make into the functions its reference change touches carry something the codec
cannot write: an object of a class a test defined, a parser's context, a callback, a schema. Such a call is
named as a *site* by the recorder (:mod:`bench.probes._probe_runtime`): its test, its target, a mark (what could
be written of each argument, the type of the rest) and which call of that mark in that test it was. At a site,
the in-place run forks once: the child calls the target once per input, in the set's order, with the site's
live arguments, those the codec could write replaced by the input's values, writes what each call gave, and
exits; the test goes on untouched. A call sees what the calls before it at the site left in the live arguments;
since the order is fixed and the reference answered the same inputs in the same order, that state is part of
the input. One fork a site, not one an input: a fork of a pytest process costs milliseconds, a call of the
target microseconds.

A site's inputs are the call as the test made it (``observed``: every argument live, so the whole value it
returns and what it leaves in its arguments are compared, where the test may look at one field) and calls
generated around the values that could be written (``generated``). An in-place run runs the same test files as
the recording did, in the same order: what a call receives can depend on what ran before it in the process (a
parser's shared singletons carry the marks of every earlier parse), so a run of the sites' tests alone would
not meet the same calls. The reference answers every input in two fresh in-place runs; an input answered alike
both times with a return or a raise is checked; the others stay in the set unchecked (``expected`` empty),
because the inputs after them at the site must meet the state they leave.

A candidate that never makes a site's call again (another mark, fewer calls) leaves the site's inputs
unanswered, which is a divergence: the tier holds only what the candidate did on the same inputs.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

SITES_PER_TARGET = 16  # sites probed per target, spread over the recorded ones
INPUTS_PER_SITE = 32  # generated inputs per site, besides the observed call, where a target has its full sites
MAX_INPUTS_PER_SITE = 128  # where it has fewer, its sites share out what the full count would have had, to this
# At most one in this many of a site's inputs comes from the sweep: the sites of a target share its questions
# out, so a fifth of each asks many in all, and a site's few inputs are not all taken from its draws.
SITE_SWEEP_SHARE = 5
MAX_IN_PLACE = 1500  # in-place inputs per task
RECORDED_SITES = 200  # sites the recorder names per target
PREFERRED_SITES = 50  # and past those, in the tests the change is about (fail_to_pass)
PREFERRED_PER_TARGET = 4  # sites of those tests probed besides the even spread, per target


@dataclass(frozen=True)
class InPlaceProbe:
    target: int
    test: str  # PYTEST_CURRENT_TEST at the call: "path::name (call)"
    mark: str
    occurrence: int
    args: str  # written form, JSON text; ["~"] where the live argument is taken
    kwargs: str
    origin: str  # "observed" | "generated"
    expected: str  # the reference's output, JSON text; "" when unchecked (sent, so the site's state is the same)

    @property
    def checked(self) -> bool:
        return bool(self.expected)

    def to_json(self) -> list:
        return [self.target, self.test, self.mark, self.occurrence, self.args, self.kwargs, self.origin,
                self.expected]


def candidates(targets, recorded_sites, sources: dict, *, generate, dropped: dict | None = None,
               preferred: Sequence[str] = ()) -> list[InPlaceProbe]:
    """The inputs of the chosen sites (:func:`chosen_sites`), unanswered yet: each site's observed call and the
    calls generated around it, at most :data:`MAX_IN_PLACE` in all. A site whose generation fails (Hypothesis
    refusing a shape) keeps its observed call; the failure is counted in ``dropped``."""
    by_target: dict[int, list] = {}
    for site in recorded_sites:
        by_target.setdefault(site[0], []).append(site)
    found: list[InPlaceProbe] = []
    plans = {index: chosen_sites(sites, set(preferred)) for index, sites in sorted(by_target.items())}
    extra, many = _what_fits(plans)
    for index, (spread, firsts) in plans.items():
        target = targets[index]
        elsewhere = [(site[4], site[5]) for site in by_target[index]]
        inputs = site_inputs(len(spread)) if many else INPUTS_PER_SITE
        for turn, (_, test, mark, occurrence, args, kwargs) in enumerate(spread + (firsts if extra else [])):
            live_args, live_kwargs = _all_live(args), _all_live(kwargs)
            found.append(InPlaceProbe(index, test, mark, occurrence, live_args, live_kwargs, "observed", ""))
            if (args, kwargs) == (live_args, live_kwargs):
                continue  # nothing that could be written: nothing to vary
            try:
                generated = generate([(args, kwargs)], method="." in target.qualname,
                                     source=sources.get(target.file, ""), qualname=target.qualname,
                                     limit=inputs, elsewhere=elsewhere, turn=turn,
                                     sweep_share=SITE_SWEEP_SHARE)
            except Exception as exc:  # noqa: BLE001 - one site's shape refused costs that site its generated inputs
                reason = f"in place: generation failed: {type(exc).__name__}"
                if dropped is not None:
                    dropped[reason] = dropped.get(reason, 0) + 1
                continue
            found += [InPlaceProbe(index, test, mark, occurrence, new_args, new_kwargs, "generated", "")
                      for new_args, new_kwargs in generated]
    return found[:MAX_IN_PLACE]


def chosen_sites(sites: list, preferred: set) -> tuple[list, list]:
    """:data:`SITES_PER_TARGET` of a target's recorded sites spread evenly over them, and besides those the first
    site of each test the change is about (``preferred``: a task's fail_to_pass) that the spread missed, at most
    :data:`PREFERRED_PER_TARGET`. soupsieve's ``select`` had 216 sites and the spread passed by the one in
    ``test_select_limit``, whose two matches tell a limit that stops one match early from the right one. They
    come after the spread, which keeps its sites and their turns of the sweep."""
    step = max(1, -(-len(sites) // SITES_PER_TARGET))
    spread = sites[::step][:SITES_PER_TARGET]
    taken = {(site[1], site[2], site[3]) for site in spread}
    firsts: dict = {}
    for site in sites:
        if site[1].rpartition(" (")[0] in preferred and (site[1], site[2], site[3]) not in taken:
            firsts.setdefault(site[1], site)
    return spread, list(firsts.values())[:PREFERRED_PER_TARGET]


def _what_fits(plans: dict) -> tuple[bool, bool]:
    """Whether the preferred sites, and the extra inputs of a target reached at few sites, fit in the task's cap
    of :data:`MAX_IN_PLACE`, each given up before the spread's sites are: cut at the cap, they took the places
    of the last targets' sites (ttl_cache's expiry, killed with 32 inputs a site, was lost so)."""
    for extra, many in ((True, True), (True, False), (False, False)):
        total = sum((len(spread) + len(firsts) * extra) * ((site_inputs(len(spread)) if many else INPUTS_PER_SITE) + 1)
                    for spread, firsts in plans.values())
        if total <= MAX_IN_PLACE:
            return extra, many
    return False, False


def site_inputs(sites: int) -> int:
    """Generated inputs each of a target's ``sites`` chosen sites gets. A target the tests reach at one site
    had the questions of one site where one reached at sixteen had sixteen times as many: pluggy's
    ``call_extra``, reached in one test, never had its implementations cut to the ``tryfirst`` one alone."""
    return max(INPUTS_PER_SITE, min(MAX_INPUTS_PER_SITE, INPUTS_PER_SITE * SITES_PER_TARGET // max(sites, 1)))


def _all_live(written: str) -> str:
    """The same call with every argument taken live at the site."""
    from bench.probes.runs import written_text

    tag, items = json.loads(written)
    if tag == "d":
        return written_text([tag, [[k, ["~"]] for k, _ in items]])
    return written_text([tag, [["~"] for _ in items]])


def run(reference, tree: Path, targets, probes, *, tests, limits, seconds_per_call: float, source_files):
    """Answer ``probes`` in place over ``tree``, running the test files ``tests``: the replay result, one output
    per probe, in order."""
    from bench.probes.runs import replay_in_place

    grouped: dict[tuple, list] = {}
    for number, probe in enumerate(probes):
        grouped.setdefault(_site(probe), []).append(
            (number, probe.args, probe.kwargs))
    return replay_in_place(reference.where, workdir=tree, targets=tuple((t.file, t.qualname) for t in targets),
                           sites=[key + (tuple(inputs),) for key, inputs in grouped.items()], tests=tests,
                           count=len(probes), limits=limits, seconds_per_call=seconds_per_call,
                           packages=reference.packages, source_files=source_files,
                           content_masks=reference.content_masks)


def settle(reference, targets, probes, scratch: Path, *, tests, limits, seconds_per_call: float, source_files,
           dropped: dict, drop_reason) -> tuple[InPlaceProbe, ...]:
    """The probes the reference answers alike in two fresh in-place runs, with that answer."""
    from dataclasses import replace

    from bench.sandbox.cleanup import remove_tree

    if not probes:
        return ()
    answers = []
    for attempt in range(2):
        tree = reference.tree(scratch / f"in-place{attempt}")
        try:
            answers.append(run(reference, tree, targets, probes, tests=tests, limits=limits,
                               seconds_per_call=seconds_per_call, source_files=source_files).outputs
                           or ("",) * len(probes))
        finally:
            remove_tree(tree)
    kept = []
    for probe, first, second in zip(probes, *answers):
        reason = drop_reason(first, second)
        if reason:
            reason = "in place: " + ("the site was not reached" if not first or not second else reason)
            dropped[reason] = dropped.get(reason, 0) + 1
        kept.append(replace(probe, expected="" if reason else first))
    return _trimmed(kept)


def _trimmed(probes: list[InPlaceProbe]) -> tuple[InPlaceProbe, ...]:
    """``probes`` without the unchecked inputs that no checked input of their site follows: nothing after them
    depends on the state they leave."""
    last: dict[tuple, int] = {}
    for at, probe in enumerate(probes):
        if probe.checked:
            last[_site(probe)] = at
    return tuple(p for at, p in enumerate(probes) if at <= last.get(_site(p), -1))


def _site(probe: InPlaceProbe) -> tuple:
    return probe.target, probe.test, probe.mark, probe.occurrence
