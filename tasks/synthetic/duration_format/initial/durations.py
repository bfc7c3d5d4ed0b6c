"""Human-readable durations like "1d 2h 3m 4s"."""

import re

_UNITS = (("h", 3600), ("m", 60), ("s", 1))
_PART = re.compile(r"(\d+)([dhms])")


def format_duration(seconds):
    if seconds < 0:
        raise ValueError("negative duration")
    parts = []
    for unit, size in _UNITS:
        count, seconds = divmod(seconds, size)
        if count:
            parts.append(f"{count}{unit}")
    return " ".join(parts)


def parse_duration(text):
    sizes = dict(_UNITS, d=86400)
    total = 0
    pieces = text.split()
    if not pieces:
        raise ValueError("empty duration")
    for piece in pieces:
        match = _PART.fullmatch(piece)
        if not match:
            raise ValueError(f"malformed part {piece!r}")
        total += int(match.group(1)) * sizes[match.group(2)]
    return total
