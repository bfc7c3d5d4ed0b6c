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
    if not probe_set.probes:
        return NearMissProbes(len(identities), (), tuple(sorted(identities)), f"no probes: {probe_set.note}")
    fixed = reference.tree(scratch / "fixed")
    killed, equivalent = [], []
    try:
        _, chosen = near_misses_of(spec, fixed, reference.pristine)
        for candidate in chosen:
            site = candidate.site
            identity = (site.file, site.operator, site.lineno, site.start, site.end)
            if identity not in identities:
                continue
            identities.discard(identity)
            sources = _mutated_sources(fixed, site, spec.source_files)
            result = verify(probe_set, reference, sources, scratch / "near", limits=limits,
                            source_files=spec.source_files)
            (equivalent if result.verified else killed).append(identity)
    finally:
        remove_tree(fixed)
    note = f"{len(identities)} survivor(s) no longer made by the engine" if identities else ""
    return NearMissProbes(len(killed) + len(equivalent) + len(identities), tuple(sorted(killed)),
                          tuple(sorted(equivalent)), note)


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
