import itertools

import pytest

import knapsack


def pseudo_random_items(n, seed=2024):
    items = []
    for i in range(n):
        seed = (1103515245 * seed + 12345) % 2**31
        weight = 1 + seed % 9
        seed = (1103515245 * seed + 12345) % 2**31
        items.append((f"i{i}", weight, seed % 20))
    return items


def brute_force_value(items, capacity):
    best = 0
    for r in range(len(items) + 1):
        for combo in itertools.combinations(items, r):
            if sum(w for _, w, _ in combo) <= capacity:
                best = max(best, sum(v for _, _, v in combo))
    return best


def test_only_one_item_fits():
    items = [("x", 6, 10), ("y", 7, 13), ("z", 8, 12)]
    assert knapsack.knapsack(items, 10) == (13, ["y"])


def test_items_are_used_at_most_once():
    items = [("a", 5, 10), ("b", 4, 40), ("c", 6, 30), ("d", 3, 50)]
    assert knapsack.knapsack(items, 10) == (90, ["b", "d"])


def test_empty_cases():
    assert knapsack.knapsack([], 10) == (0, [])
    assert knapsack.knapsack([("a", 1, 5)], 0) == (0, [])


def test_tie_prefers_lighter_selection():
    assert knapsack.knapsack([("a", 3, 10), ("b", 2, 10)], 3) == (10, ["b"])


def test_tie_prefers_not_taking_later_item():
    assert knapsack.knapsack([("a", 2, 5), ("b", 2, 5)], 2) == (5, ["a"])
    assert knapsack.knapsack([("a", 1, 3), ("b", 1, 0), ("c", 2, 3)], 3) == (6, ["a", "c"])


def test_matches_brute_force():
    items = pseudo_random_items(12)
    for capacity in (0, 7, 15, 30):
        value, names = knapsack.knapsack(items, capacity)
        chosen = [item for item in items if item[0] in names]
        assert value == brute_force_value(items, capacity)
        assert sum(w for _, w, _ in chosen) <= capacity
        assert sum(v for _, _, v in chosen) == value
        assert names == [n for n, _, _ in items if n in names]


def test_unbounded():
    assert knapsack.knapsack_unbounded([("a", 5, 10), ("b", 4, 40), ("d", 3, 50)], 10) == 150


def test_invalid_input():
    for items, capacity in (([("a", 0, 1)], 5), ([("a", 1, -1)], 5), ([("a", 1, 1), ("a", 2, 2)], 5),
                            ([("a", 1, 1)], -1)):
        with pytest.raises(ValueError):
            knapsack.knapsack(items, capacity)
