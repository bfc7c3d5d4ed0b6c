"""Union-find and Kruskal's minimum spanning forest."""


class UnionFind:
    def __init__(self, items=()):
        self._parent = {}
        self._size = {}
        self._count = 0
        for item in items:
            self.add(item)

    def add(self, x):
        if x not in self._parent:
            self._parent[x] = x
            self._size[x] = 1
            self._count += 1

    def find(self, x):
        root = x
        while self._parent[root] != root:
            root = self._parent[root]
        while self._parent[x] != root:
            self._parent[x], x = root, self._parent[x]
        return root

    def union(self, a, b):
        ra, rb = self.find(a), self.find(b)
        if self._size[ra] < self._size[rb]:
            ra, rb = rb, ra
        self._parent[rb] = ra
        self._size[ra] += self._size[rb]
        self._count -= 1
        return True

    def connected(self, a, b):
        return self.find(a) == self.find(b)

    @property
    def components(self):
        return self._count


def _checked_edges(nodes, edges):
    known = set(nodes)
    for u, v, w in edges:
        if u not in known or v not in known:
            raise ValueError(f"edge ({u!r}, {v!r}) has an unknown end")
        yield u, v, w


def minimum_spanning_forest(nodes, edges):
    nodes = list(nodes)
    sets = UnionFind(nodes)
    chosen = []
    total = 0
    for u, v, w in sorted(_checked_edges(nodes, edges), key=lambda edge: edge[2]):
        if sets.union(u, v):
            chosen.append((u, v, w))
            total += w
    return total, chosen


def count_components(nodes, edges):
    nodes = list(nodes)
    sets = UnionFind(nodes)
    for u, v, _ in _checked_edges(nodes, edges):
        sets.union(u, v)
    return sets.components
