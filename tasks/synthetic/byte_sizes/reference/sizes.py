"""Parsing and formatting of byte sizes with decimal and binary units."""

import re
from decimal import ROUND_HALF_EVEN, Decimal

_FACTORS = {
    "B": 1, "kB": 1000, "KB": 1000, "MB": 1000**2, "GB": 1000**3, "TB": 1000**4,
    "KiB": 1024, "MiB": 1024**2, "GiB": 1024**3, "TiB": 1024**4,
}
_SIZE = re.compile(r"(\d+(?:\.\d+)?) *([A-Za-z]+)")
_UNITS = {True: (1024, ("KiB", "MiB", "GiB", "TiB")), False: (1000, ("kB", "MB", "GB", "TB"))}


def parse_size(text):
    match = _SIZE.fullmatch(text.strip())
    if not match or match.group(2) not in _FACTORS:
        raise ValueError(f"not a size: {text!r}")
    exact = Decimal(match.group(1)) * _FACTORS[match.group(2)]
    return int(exact.to_integral_value(rounding=ROUND_HALF_EVEN))


def format_size(n, binary=True):
    if n < 0:
        raise ValueError("size must not be negative")
    base, units = _UNITS[binary]
    if n < base:
        return f"{n} B"
    for power, unit in enumerate(units, start=1):
        text = f"{n / base**power:.1f}"
        if float(text) < base or unit == units[-1]:
            return f"{text} {unit}"
    raise AssertionError("unreachable")
