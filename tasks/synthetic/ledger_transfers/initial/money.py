"""Money amounts as integer cents."""

import re

_AMOUNT = re.compile(r"(-?\d{1,3}(?:,\d{3})+|-?\d+)(?:\.(\d{1,2}))?")


def parse_amount(text):
    match = _AMOUNT.fullmatch(text.strip())
    if not match:
        raise ValueError(f"not an amount: {text!r}")
    whole, fraction = match.groups()
    return int(whole.replace(",", "")) * 100 + int(fraction or "0")


def format_amount(cents):
    sign = "-" if cents < 0 else ""
    whole, fraction = divmod(abs(cents), 100)
    return f"{sign}{whole:,}.{fraction:02d}"
