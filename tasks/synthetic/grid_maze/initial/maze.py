"""Breadth-first search in grid mazes with lexicographic tie-breaking."""

from collections import deque

_MOVES = (("U", -1, 0), ("D", 1, 0), ("L", 0, -1), ("R", 0, 1))


def _parse(maze):
    if not maze or not maze[0]:
        raise ValueError("a maze needs non-empty rows")
    if any(ch not in "SG#." for row in maze for ch in row):
        raise ValueError("unknown character in maze")
    starts = [(r, c) for r, row in enumerate(maze) for c, ch in enumerate(row) if ch == "S"]
    goals = [(r, c) for r, row in enumerate(maze) for c, ch in enumerate(row) if ch == "G"]
    if len(starts) != 1 or len(goals) != 1:
        raise ValueError("a maze needs exactly one S and one G")
    return starts[0], goals[0]


def _search(maze, start):
    rows, cols = len(maze), len(maze[0])
    previous = {start: None}
    queue = deque([start])
    while queue:
        r, c = queue.popleft()
        for name, dr, dc in _MOVES:
            nr, nc = r + dr, c + dc
            if 0 <= nr < rows and 0 <= nc < cols and maze[nr][nc] != "#" and (nr, nc) not in previous:
                previous[(nr, nc)] = ((r, c), name)
                queue.append((nr, nc))
    return previous


def shortest_path(maze):
    start, goal = _parse(maze)
    previous = _search(maze, start)
    if goal not in previous:
        return None
    moves = []
    cell = goal
    while previous[cell] is not None:
        cell, name = previous[cell]
        moves.append(name)
    return "".join(reversed(moves))


def reachable_count(maze):
    start, _ = _parse(maze)
    return len(_search(maze, start)) - 1  # cells other than the start
