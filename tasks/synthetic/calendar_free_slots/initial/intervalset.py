"""Set operations on unions of half-open integer intervals."""


def normalize(intervals):
    intervals = list(intervals)
    for start, end in intervals:
        if start > end:
            raise ValueError(f"invalid interval ({start}, {end})")
    merged = []
    for start, end in sorted(i for i in intervals if i[0] < i[1]):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def union(a, b):
    return normalize(list(a) + list(b))


def intersect(a, b):
    a, b = normalize(a), normalize(b)
    result = []
    i = j = 0
    while i < len(a) and j < len(b):
        start, end = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if start < end:
            result.append((start, end))
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return result


def subtract(a, b):
    a, b = normalize(a), normalize(b)
    result = []
    for start, end in a:
        overlapping = [(s, e) for s, e in b if s < end and e > start]
        if not overlapping:
            result.append((start, end))
            continue
        cursor = start
        for s, e in overlapping:
            if s > cursor:
                result.append((cursor, s))
            cursor = max(cursor, e)
    return result
