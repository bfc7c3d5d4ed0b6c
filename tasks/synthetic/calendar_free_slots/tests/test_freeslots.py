import pytest

import freeslots

BUSY = {
    "ana": [("09:00", "10:00"), ("13:00", "14:30")],
    "ben": [("09:30", "11:00"), ("16:00", "16:30")],
    "cy": [("12:00", "12:15")],
}


def test_parse_and_format():
    assert freeslots.parse_hhmm("09:30") == 570
    assert freeslots.parse_hhmm("24:00") == 1440
    assert freeslots.format_hhmm(570) == "09:30"
    for bad in ("9:30", "24:01", "12:60", "ab:cd", "12:3"):
        with pytest.raises(ValueError):
            freeslots.parse_hhmm(bad)


def test_free_slots_in_working_day():
    assert freeslots.free_slots(BUSY, ("08:00", "18:00")) == [
        ("08:00", "09:00"), ("11:00", "12:00"), ("12:15", "13:00"), ("14:30", "16:00"), ("16:30", "18:00")]


def test_minimum_length_is_inclusive():
    assert freeslots.free_slots(BUSY, ("08:00", "18:00"), min_minutes=60) == [
        ("08:00", "09:00"), ("11:00", "12:00"), ("14:30", "16:00"), ("16:30", "18:00")]


def test_window_clips_free_time():
    assert freeslots.free_slots(BUSY, ("09:45", "12:30")) == [("11:00", "12:00"), ("12:15", "12:30")]


def test_first_common_slot_exact_fit():
    assert freeslots.first_common_slot(BUSY, ("09:00", "18:00"), 60) == ("11:00", "12:00")
    assert freeslots.first_common_slot(BUSY, ("09:00", "18:00"), 45) == ("11:00", "11:45")


def test_first_common_slot_none():
    assert freeslots.first_common_slot(BUSY, ("09:00", "12:15"), 61) is None
