"""scripts/post_cutoff_tier.py: the window it reads releases from, the release it picks in it, and the tier it
reports (the pool's mutation tasks dated inside the window)."""

import datetime
import importlib.util

from bench.spec.load import discover, load_all
from bench.testing.support import checkout_root

ROOT = checkout_root()
_spec = importlib.util.spec_from_file_location("post_cutoff_tier", ROOT / "scripts" / "post_cutoff_tier.py")
tier_script = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(tier_script)


def test_the_window_starts_that_many_calendar_months_back_on_a_day_the_month_has():
    start = tier_script.window_start
    assert start(datetime.date(2026, 12, 5), 6) == "2026-06-05"
    assert start(datetime.date(2026, 8, 31), 6) == "2026-02-28"
    assert start(datetime.date(2024, 3, 31), 1) == "2024-02-29"
    assert start(datetime.date(2026, 1, 15), 13) == "2024-12-15"


def test_the_highest_version_uploaded_in_the_window_is_picked_not_the_last_upload():
    releases = (("7.2.0", "2026-05-01"), ("8.0.2", "2026-11-18"), ("7.3.3", "2026-11-19"), ("8.0.10", "2026-11-10"))
    assert tier_script.newest_in_window(releases, "2026-06-05") == ("8.0.10", "2026-11-10")
    assert tier_script.newest_in_window(releases, "2026-11-20") is None


def test_the_tier_is_the_pools_mutation_tasks_dated_on_or_after_the_window_start():
    pool = load_all(discover(ROOT))
    start = "2024-10-01"
    tier = tier_script.tier(pool, start)
    assert tier and all(s.kind == "mutation" and s.provenance.released >= start for s in tier)
    assert len(tier) == sum(1 for s in pool if s.kind == "mutation" and s.date >= start)
