import pytest

import rooms


def test_no_overlap_needs_one_room():
    assert rooms.min_rooms([("a", 1, 2), ("b", 3, 4)]) == 1


def test_back_to_back_meetings_share_a_room():
    meetings = [("a", 9, 10), ("b", 10, 11), ("c", 11, 12)]
    assert rooms.min_rooms(meetings) == 1
    assert rooms.assign_rooms(meetings) == {"a": 0, "b": 0, "c": 0}


def test_overlapping_meetings():
    meetings = [("a", 0, 30), ("b", 5, 10), ("c", 15, 20), ("d", 8, 25)]
    assert rooms.min_rooms(meetings) == 3
    assert rooms.min_rooms([]) == 0


def test_assignment_prefers_lowest_free_room():
    meetings = [("long", 0, 10), ("short", 1, 3), ("late", 11, 12)]
    assert rooms.assign_rooms(meetings) == {"long": 0, "short": 1, "late": 0}


def test_assignment_order_and_room_count():
    meetings = [("c", 5, 9), ("a", 1, 4), ("b", 1, 6), ("d", 6, 7), ("e", 4, 5)]
    assignment = rooms.assign_rooms(meetings)
    assert assignment == {"a": 0, "b": 1, "e": 0, "c": 0, "d": 1}
    assert len(set(assignment.values())) == rooms.min_rooms(meetings)


def test_conflicts():
    meetings = [("x", 1, 5), ("b", 4, 6), ("a", 5, 7), ("c", 0, 2)]
    assert rooms.conflicts(meetings) == [("a", "b"), ("b", "x"), ("c", "x")]


def test_invalid_meetings():
    for bad in ([("a", 3, 3)], [("a", 4, 2)], [("a", 1, 2), ("a", 3, 4)]):
        with pytest.raises(ValueError):
            rooms.min_rooms(bad)
