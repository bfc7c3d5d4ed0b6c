"""Room planning for meetings on half-open time intervals."""

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
    # At equal times the end (-1) sorts before the start (+1): a room freed at t can be reused at t.
    events = sorted([(start, 1) for _, start, _ in meetings] + [(end, -1) for _, _, end in meetings])
    in_use = best = 0
    for _, change in events:
        in_use += change
        best = max(best, in_use)
    return best


def assign_rooms(meetings):
    _validate(meetings)
    free_at = []
    assignment = {}
    for name, start, end in sorted(meetings, key=lambda m: (m[1], m[2], m[0])):
        for room, available in enumerate(free_at):
            if available <= start:
                break
        else:
            room = len(free_at)
            free_at.append(None)
        free_at[room] = end
        assignment[name] = room
    return assignment


def conflicts(meetings):
    _validate(meetings)
    pairs = []
    for (n1, s1, e1), (n2, s2, e2) in combinations(meetings, 2):
        if s1 < e2 and s2 < e1:
            pairs.append(tuple(sorted((n1, n2))))
    return sorted(pairs)
