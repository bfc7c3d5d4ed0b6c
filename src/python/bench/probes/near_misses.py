"""Adequacy measured again with probes: does the probe set tell apart the near misses the tests let through?

Each survivor of a task's adequacy run (:mod:`bench.gate.adequacy`: the fix with one more single-site mutation
that every fail_to_pass and pass_to_pass test passed) is made again from its identity (file, operator, byte
span), laid into the reference's source files and checked like a scored candidate (:func:`bench.probes.verify
.verify`): **killed by the probes** when some probe answers differently, **equivalent on probes** when every
probe answers as the fix does (truly equivalent, or a change the probes never exercise).
"""

from __future__ import annotations

from pathlib import Path

from bench.probes.store import NearMissProbes


def probe_near_misses(spec, adequacy, probe_set, reference, scratch: Path, *, limits) -> NearMissProbes | None:
    """The probes' verdict on ``adequacy``'s survivors; None when the adequacy has none to judge."""
    from bench.gate.adequacy import near_misses_of
    from bench.probes.verify import verify
    from bench.sandbox.cleanup import remove_tree

    if adequacy is None or not adequacy.survivors:
        return None
    identities = {(s.file, s.operator, s.lineno, s.start, s.end) for s in adequacy.survivors}
    if not probe_set.size:
        return NearMissProbes(len(identities), (), tuple(sorted(i + ("",) for i in identities)),
                              f"no probes: {probe_set.note}")
    fixed = reference.tree(scratch / "fixed")
    # A survivor is named by file, operator and span, not by its replacement: two near misses of one span (``m[2]``
    # made ``m[1]`` and ``m[3]``) share a name. Every one of them is replayed; the name is killed only when the
    # probes tell each from the fix, and equivalent (with the replacement the probes accept) otherwise.
    verdicts: dict[tuple, list[tuple[str, bool]]] = {}
    try:
        _, chosen = near_misses_of(spec, fixed, reference.pristine)
        for candidate in chosen:
            site = candidate.site
            identity = (site.file, site.operator, site.lineno, site.start, site.end)
            if identity in identities:
                sources = _mutated_sources(fixed, site, spec.source_files)
                result = verify(probe_set, reference, sources, scratch / "near", limits=limits,
                                source_files=spec.source_files)
                verdicts.setdefault(identity, []).append((site.replacement, result.verified))
    finally:
        remove_tree(fixed)
    killed = tuple(sorted(i for i, found in verdicts.items() if not any(ok for _, ok in found)))
    equivalent = tuple(sorted(i + (next(r for r, ok in found if ok),) for i, found in verdicts.items()
                              if any(ok for _, ok in found)))
    gone = len(identities) - len(verdicts)
    note = f"{gone} survivor(s) no longer made by the engine" if gone else ""
    return NearMissProbes(len(identities), killed, equivalent, note)


def _mutated_sources(fixed: Path, site, source_files) -> tuple[tuple[str, str], ...]:
    """The source files of ``fixed`` with ``site`` written into its file (the tree is left as it was)."""
    from bench.source.mutation_site import apply_mutation

    path = fixed / site.file
    original = path.read_bytes()
    try:
        apply_mutation(fixed, site)
        return tuple((p, (fixed / p).read_text(encoding="utf-8")) for p in source_files if (fixed / p).is_file())
    finally:
        path.write_bytes(original)
