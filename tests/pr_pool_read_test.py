"""The published PR pool is read by hand, twice: every PR task in it was read by two readings, none a reader
called false (no bug fix) is in it, and every reading names a PR task the repository knows
(``tasks/_readings/pr.json``; docs/measurements/pr-reading-brief.md; ``scripts/pr_readings.py``)."""

import json

from bench.gate import pr_readings
from bench.spec.load import discover, load_all
from bench.testing.support import checkout_root

ROOT = checkout_root()


def _pr_ids(retired: bool) -> set[str]:
    return {s.task_id for s in load_all(discover(ROOT, retired=retired)) if s.kind == "pr"}


def test_every_pr_task_in_the_pool_was_read_twice():
    """Fails on any PR task of the pool with fewer than two independent readings (a newly admitted task is read
    twice before it counts)."""
    left = pr_readings.unread(pr_readings.load(ROOT), _pr_ids(retired=False))
    assert left == [], f"{len(left)} PR tasks of the pool without two readings, e.g. {left[:3]}"


def test_no_task_a_reader_called_false_stays_in_the_pool():
    found = pr_readings.load(ROOT)
    kept_false = sorted(t for t in _pr_ids(retired=False) if t in found and found[t].false)
    assert kept_false == [], f"read false but still in the pool (retire them): {kept_false}"


def _pr_drop_ids() -> set[str]:
    """Candidates admission dropped that were PRs: read while dropped for want of evidence beyond their title,
    some were dropped again for another reason when the readings let them through (their own tests fail
    with the fix), and their drop record keeps the candidate."""
    ids = set()
    for path in (ROOT / "tasks" / "_dropped").glob("*.json"):
        candidate = json.loads(path.read_text(encoding="utf-8")).get("candidate") or {}
        if candidate.get("kind") == "pr":
            ids.add(path.stem)
    return ids


def test_every_reading_names_a_pr_task_the_repository_knows():
    """A PR task of the pool or a retired one, or a PR candidate admission dropped (read for want of evidence
    beyond its title)."""
    strays = sorted(set(pr_readings.load(ROOT)) - _pr_ids(retired=True) - _pr_drop_ids())
    assert strays == []

