"""0/1 and unbounded knapsack with deterministic tie-breaking."""


def _validate(items, capacity):
    names = [name for name, _, _ in items]
    if len(set(names)) != len(names):
        raise ValueError("item names must be unique")
    for name, weight, value in items:
        if not isinstance(name, str) or weight < 1 or value < 0:
            raise ValueError(f"invalid item {(name, weight, value)!r}")
    if capacity < 0:
        raise ValueError("capacity must not be negative")


def knapsack(items, capacity):
    _validate(items, capacity)
    # best[c] = (value, -weight) of the preferred selection among the items seen so far with weight <= c.
    # Including item i only when strictly better keeps ties on selections without the later item.
    best = [(0, 0)] * (capacity + 1)
    took = []
    for _, weight, value in items:
        row = list(best)
        taken = [False] * (capacity + 1)
        for c in range(weight, capacity + 1):
            candidate = (best[c - weight][0] + value, best[c - weight][1] - weight)
            if candidate > row[c]:
                row[c] = candidate
                taken[c] = True
        best = row
        took.append(taken)
    chosen = []
    c = capacity
    for i in range(len(items) - 1, -1, -1):
        if took[i][c]:
            chosen.append(items[i][0])
            c -= items[i][1]
    chosen.reverse()
    return best[capacity][0], chosen


def knapsack_unbounded(items, capacity):
    _validate(items, capacity)
    best = [0] * (capacity + 1)
    for c in range(1, capacity + 1):
        for _, weight, value in items:
            if weight <= c:
                best[c] = max(best[c], best[c - weight] + value)
    return best[capacity]
