"""Union of half-open integer intervals."""


def _check(intervals):
    for start, end in intervals:
        if start > end:
            raise ValueError(f"invalid interval ({start}, {end})")


def merge(intervals):
    intervals = list(intervals)
    _check(intervals)
    merged = []
    for start, end in sorted(i for i in intervals if i[0] < i[1]):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def insert(intervals, new):
    return merge(list(intervals) + [new])


def total_length(intervals):
    return sum(end - start for start, end in merge(intervals))
