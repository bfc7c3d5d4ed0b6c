import pytest

import lru


def test_put_and_get():
    cache = lru.LRUCache(2)
    cache.put("a", 1)
    assert cache.get("a") == 1
    assert cache.get("zzz", "missing") == "missing"


def test_evicts_least_recently_inserted():
    cache = lru.LRUCache(2)
    for key in "abc":
        cache.put(key, key.upper())
    assert "a" not in cache
    assert cache.keys() == ["b", "c"]


def test_get_refreshes_recency():
    cache = lru.LRUCache(2)
    cache.put("a", 1)
    cache.put("b", 2)
    cache.get("a")
    cache.put("c", 3)
    assert cache.keys() == ["a", "c"]


def test_update_existing_key_does_not_evict():
    cache = lru.LRUCache(2)
    cache.put("a", 1)
    cache.put("b", 2)
    cache.put("b", 20)
    assert len(cache) == 2
    assert cache.keys() == ["a", "b"]
    assert cache.get("b") == 20


def test_contains_does_not_refresh():
    cache = lru.LRUCache(2)
    cache.put("a", 1)
    cache.put("b", 2)
    assert "a" in cache
    cache.put("c", 3)
    assert cache.keys() == ["b", "c"]


def test_zero_capacity_stores_nothing():
    cache = lru.LRUCache(0)
    cache.put("a", 1)
    assert len(cache) == 0
    assert cache.get("a") is None


def test_negative_capacity_rejected():
    with pytest.raises(ValueError):
        lru.LRUCache(-1)
