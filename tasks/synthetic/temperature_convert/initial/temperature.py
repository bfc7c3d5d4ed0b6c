"""Conversion between Celsius, Fahrenheit and Kelvin."""

_FORMULAS = {
    ("C", "F"): lambda v: v * 9 / 5 + 32,
    ("F", "C"): lambda v: (v - 32) * 5 / 9,
    ("C", "K"): lambda v: v + 273.15,
    ("K", "C"): lambda v: v - 273.15,
    ("F", "K"): lambda v: (v - 32) * 5 / 9 + 273,
    ("K", "F"): lambda v: (v - 273.15) * 9 / 5 + 32,
}


def convert(value, from_unit, to_unit):
    units = ("C", "F", "K")
    if from_unit not in units or to_unit not in units:
        raise ValueError(f"unknown unit: {from_unit!r} or {to_unit!r}")
    if from_unit == "K" and value < 0:
        raise ValueError("below absolute zero")
    if from_unit == to_unit:
        return round(value, 2)
    return round(_FORMULAS[(from_unit, to_unit)](value), 2)
