"""Human-readable durations like "1d 2h 3m 4s"."""

import re

_UNITS = (("d", 86400), ("h", 3600), ("m", 60), ("s", 1))
_PART = re.compile(r"(\d+)([dhms])")


def format_duration(seconds):
    if seconds < 0:
        raise ValueError("negative duration")
    parts = []
    for unit, size in _UNITS:
        count, seconds = divmod(seconds, size)
        if count:
            parts.append(f"{count}{unit}")
    return " ".join(parts) or "0s"


def parse_duration(text):
    sizes = dict(_UNITS)
    seen = set()
    total = 0
    pieces = text.split()
    if not pieces:
        raise ValueError("empty duration")
    for piece in pieces:
        match = _PART.fullmatch(piece)
        if not match:
            raise ValueError(f"malformed part {piece!r}")
        unit = match.group(2)
        if unit in seen:
            raise ValueError(f"unit {unit!r} given twice")
        seen.add(unit)
        total += int(match.group(1)) * sizes[unit]
    return total
