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
    j = 0
    for start, end in a:
        while j < len(b) and b[j][1] <= start:
            j += 1
        cursor = start
        k = j
        while k < len(b) and b[k][0] < end:
            if b[k][0] > cursor:
                result.append((cursor, b[k][0]))
            cursor = max(cursor, b[k][1])
            k += 1
        if cursor < end:
            result.append((cursor, end))
    return result
