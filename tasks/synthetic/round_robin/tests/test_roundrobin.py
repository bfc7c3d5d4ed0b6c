import pytest

import roundrobin


def test_bursts_that_are_multiples_of_the_quantum():
    assert roundrobin.schedule([("A", 4), ("B", 2)], 2) == [("A", 0, 2), ("B", 2, 4), ("A", 4, 6)]


def test_last_slice_is_shorter():
    assert roundrobin.schedule([("A", 5)], 2) == [("A", 0, 2), ("A", 2, 4), ("A", 4, 5)]


def test_interleaving_with_remainders():
    expected = [("A", 0, 2), ("B", 2, 4), ("C", 4, 5), ("A", 5, 6), ("B", 6, 8), ("B", 8, 9)]
    assert roundrobin.schedule([("A", 3), ("B", 5), ("C", 1)], 2) == expected


def test_completion_times():
    assert roundrobin.completion_times([("A", 3), ("B", 5), ("C", 1)], 2) == {"A": 6, "B": 9, "C": 5}


def test_zero_burst_job_has_no_slice():
    jobs = [("idle", 0), ("work", 2)]
    assert roundrobin.schedule(jobs, 5) == [("work", 0, 2)]
    assert roundrobin.completion_times(jobs, 5) == {"idle": 0, "work": 2}


def test_average_waiting_time():
    assert abs(roundrobin.average_waiting_time([("A", 3), ("B", 5), ("C", 1)], 2) - 11 / 3) < 1e-9
    assert roundrobin.average_waiting_time([], 3) == 0.0


def test_invalid_input():
    for jobs, quantum in (([("A", 1)], 0), ([("A", 1), ("A", 2)], 1), ([("A", -1)], 1)):
        with pytest.raises(ValueError):
            roundrobin.schedule(jobs, quantum)
