"""One bug, one item: the pool never holds both a reverted-fix mutation task and the PR task whose fix it
re-plants (bench.gate.twins: the twins recorded when the mutation twin was retired, and any reverted commit that
is a PR task's fix commit), and every recorded twin names tasks the repository knows."""

from bench.gate import twins
from bench.spec.load import discover, load_all
from bench.testing.support import checkout_root

ROOT = checkout_root()


def test_the_pool_never_holds_both_items_of_a_cross_kind_twin():
    pool = load_all(discover(ROOT))
    ids = {s.task_id for s in pool}
    both = sorted((t.mutation, t.pr) for t in twins.pool_twins(pool, ROOT) if t.mutation in ids and t.pr in ids)
    assert both == [], f"{len(both)} bugs counted twice, e.g. {both[:3]}"


def test_every_recorded_twin_names_a_retired_mutation_and_a_known_pr_task():
    known = {s.task_id: s for s in load_all(discover(ROOT, retired=True))}
    pool = {s.task_id for s in load_all(discover(ROOT))}
    recorded = twins.recorded(ROOT)
    assert recorded, "no twins recorded"
    assert sorted(t.mutation for t in recorded if t.mutation in pool) == []
    assert sorted(t.pr for t in recorded if t.pr not in known) == []
    assert {known[t.mutation].mutation.operator for t in recorded} == {"reverted_fix"}
