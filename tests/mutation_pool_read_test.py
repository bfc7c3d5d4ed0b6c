"""The published mutation pool is read by hand: every task in it was read and kept, none a reader called a
giveaway is in it, and every reading names a task the repository knows."""

from bench.mutate import readings
from bench.spec.load import discover, load_all
from bench.testing.support import checkout_root

ROOT = checkout_root()


def _mutation_ids(retired: bool) -> set[str]:
    return {s.task_id for s in load_all(discover(ROOT, retired=retired)) if s.kind == "mutation"}


def test_every_mutation_task_in_the_pool_was_read_and_kept():
    found = readings.load(ROOT)
    pool = _mutation_ids(retired=False)
    unread = sorted(pool - set(found))
    kept_giveaways = sorted(t for t in pool if t in found and found[t].giveaway)
    assert unread == [], f"{len(unread)} mutation tasks never read by hand, e.g. {unread[:3]}"
    assert kept_giveaways == [], f"read as giveaways but still in the pool: {kept_giveaways}"


def test_every_reading_names_a_task_the_repository_knows():
    known = _mutation_ids(retired=True)
    strays = sorted(set(readings.load(ROOT)) - known)
    assert strays == []
