"""Room planning for meetings on half-open time intervals."""

import heapq
from itertools import combinations


def _validate(meetings):
    names = [name for name, _, _ in meetings]
    if len(set(names)) != len(names):
        raise ValueError("meeting names must be unique")
    for name, start, end in meetings:
        if not start < end:
            raise ValueError(f"meeting {name!r} does not end after it starts")


def min_rooms(meetings):
    _validate(meetings)
    starts = sorted(start for _, start, _ in meetings)
    ends = sorted(end for _, _, end in meetings)
    rooms = j = 0
    for start in starts:
        if start > ends[j]:
            j += 1
        else:
            rooms += 1
    return rooms


def assign_rooms(meetings):
    _validate(meetings)
    free = []  # heap of (free_at, room)
    opened = 0
    assignment = {}
    for name, start, end in sorted(meetings, key=lambda m: (m[1], m[2], m[0])):
        if free and free[0][0] <= start:
            _, room = heapq.heappop(free)
        else:
            room = opened
            opened += 1
        heapq.heappush(free, (end, room))
        assignment[name] = room
    return assignment


def conflicts(meetings):
    _validate(meetings)
    pairs = []
    for (n1, s1, e1), (n2, s2, e2) in combinations(meetings, 2):
        if s1 < e2 and s2 < e1:
            pairs.append(tuple(sorted((n1, n2))))
    return sorted(pairs)
