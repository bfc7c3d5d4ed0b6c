"""Deterministic topological ordering of a dependency graph, with cycle reporting."""

from collections import deque


class CycleError(ValueError):
    def __init__(self, cycle):
        super().__init__("dependency cycle: " + " -> ".join(cycle))
        self.cycle = cycle


def _find_cycle(graph, unplaced):
    node = min(unplaced)
    position = {}
    walk = []
    while node not in position:
        position[node] = len(walk)
        walk.append(node)
        node = min(dep for dep in graph[node] if dep in unplaced)
    return walk[position[node]:] + [node]


def build_order(graph):
    waiting = {node: len(set(deps)) for node, deps in graph.items()}
    dependents = {node: [] for node in graph}
    for node, deps in graph.items():
        for dep in set(deps):
            dependents.setdefault(dep, []).append(node)
    ready = deque(node for node, count in waiting.items() if count == 0)
    order = []
    while ready:
        node = ready.popleft()
        order.append(node)
        for dependent in dependents[node]:
            waiting[dependent] -= 1
            if waiting[dependent] == 0:
                ready.append(dependent)
    if len(order) < len(graph):
        raise CycleError(_find_cycle(graph, set(graph) - set(order)))
    return order


def affected(graph, changed):
    nodes = set(graph) | {dep for deps in graph.values() for dep in deps}
    unknown = set(changed) - nodes
    if unknown:
        raise ValueError(f"unknown nodes: {sorted(unknown)}")
    dependents = {node: [] for node in nodes}
    for node, deps in graph.items():
        for dep in set(deps):
            dependents[dep].append(node)
    reached = set(changed)
    stack = list(changed)
    while stack:
        for dependent in dependents[stack.pop()]:
            if dependent not in reached:
                reached.add(dependent)
                stack.append(dependent)
    return [node for node in build_order(graph) if node in reached]
