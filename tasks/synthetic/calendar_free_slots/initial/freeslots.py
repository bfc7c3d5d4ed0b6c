"""Finding times when nobody in a group is busy."""

import re

from intervalset import subtract, union

_HHMM = re.compile(r"(\d\d):(\d\d)")


def parse_hhmm(text):
    match = _HHMM.fullmatch(text)
    if not match:
        raise ValueError(f"not a HH:MM time: {text!r}")
    hours, minutes = int(match.group(1)), int(match.group(2))
    if minutes > 59 or hours > 24 or (hours == 24 and minutes):
        raise ValueError(f"not a time of day: {text!r}")
    return hours * 60 + minutes


def format_hhmm(minutes):
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def _free_minutes(busy, window):
    taken = []
    for slots in busy.values():
        taken = union(taken, [(parse_hhmm(s), parse_hhmm(e)) for s, e in slots])
    return subtract([(parse_hhmm(window[0]), parse_hhmm(window[1]))], taken)


def free_slots(busy, window, min_minutes=1):
    return [(format_hhmm(s), format_hhmm(e)) for s, e in _free_minutes(busy, window) if e - s > min_minutes]


def first_common_slot(busy, window, duration):
    for start, end in _free_minutes(busy, window):
        if end - start > duration:
            return format_hhmm(start), format_hhmm(start + duration)
    return None
