import pytest

import ttlcache


class FakeClock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def make(capacity=3, ttl=10.0):
    clock = FakeClock()
    return ttlcache.TTLCache(capacity, ttl, clock), clock


def test_get_before_expiry():
    cache, clock = make()
    cache.set("a", 1)
    clock.now = 9.5
    assert cache.get("a") == 1
    assert "a" in cache


def test_entry_expires_exactly_at_ttl():
    cache, clock = make()
    cache.set("a", 1)
    clock.now = 10.0
    assert cache.get("a", "gone") == "gone"
    assert "a" not in cache


def test_get_does_not_extend_expiry():
    cache, clock = make()
    cache.set("a", 1)
    clock.now = 8.0
    cache.get("a")
    clock.now = 12.0
    assert cache.get("a") is None


def test_set_again_refreshes_expiry():
    cache, clock = make()
    cache.set("a", 1)
    clock.now = 8.0
    cache.set("a", 2)
    clock.now = 15.0
    assert cache.get("a") == 2


def test_lru_eviction_among_live_entries():
    cache, clock = make(capacity=2)
    cache.set("a", 1)
    cache.set("b", 2)
    cache.get("a")
    cache.set("c", 3)
    assert cache.keys() == ["a", "c"]


def test_expired_entries_dropped_before_evicting_live_ones():
    cache, clock = make(capacity=2)
    cache.set("old", 0)
    clock.now = 5.0
    cache.set("live", 1)
    cache.get("old")  # still live here: "old" becomes most recently used
    clock.now = 10.0  # "old" has now expired, "live" has not
    cache.set("new", 2)
    assert cache.keys() == ["live", "new"]


def test_len_counts_live_entries():
    cache, clock = make()
    cache.set("a", 1)
    clock.now = 4.0
    cache.set("b", 2)
    clock.now = 10.0
    assert len(cache) == 1
    assert cache.keys() == ["b"]


def test_invalid_arguments():
    for capacity, ttl in ((0, 1.0), (1, 0.0), (1, -5.0)):
        with pytest.raises(ValueError):
            ttlcache.TTLCache(capacity, ttl, FakeClock())
