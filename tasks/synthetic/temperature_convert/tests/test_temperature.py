import pytest

import temperature


def test_celsius_to_fahrenheit():
    assert temperature.convert(100, "C", "F") == 212.0
    assert temperature.convert(-40, "C", "F") == -40.0


def test_fahrenheit_to_celsius():
    assert temperature.convert(32, "F", "C") == 0.0


def test_celsius_to_kelvin():
    assert temperature.convert(0, "C", "K") == 273.15


def test_fahrenheit_to_kelvin():
    assert temperature.convert(212, "F", "K") == 373.15


def test_absolute_zero_in_fahrenheit():
    assert temperature.convert(0, "K", "F") == -459.67


def test_below_absolute_zero_rejected_in_any_unit():
    for value, unit in ((-1, "K"), (-300, "C"), (-500, "F")):
        with pytest.raises(ValueError):
            temperature.convert(value, unit, "K")


def test_unknown_unit_rejected():
    with pytest.raises(ValueError):
        temperature.convert(1, "c", "F")


def test_same_unit_rounds():
    assert temperature.convert(21.456, "C", "C") == 21.46
