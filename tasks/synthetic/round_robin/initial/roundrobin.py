"""Round-robin CPU scheduling of jobs that all arrive at time zero."""

from collections import deque


def _validate(jobs, quantum):
    if quantum < 1:
        raise ValueError("quantum must be at least 1")
    names = [name for name, _ in jobs]
    if len(set(names)) != len(names):
        raise ValueError("duplicate job names")
    if any(burst < 0 for _, burst in jobs):
        raise ValueError("negative burst")


def schedule(jobs, quantum):
    _validate(jobs, quantum)
    queue = deque(jobs)
    slices = []
    time = 0
    while queue:
        name, remaining = queue.popleft()
        slices.append((name, time, time + quantum))
        time += quantum
        remaining -= quantum
        if remaining > 0:
            queue.append((name, remaining))
    return slices


def completion_times(jobs, quantum):
    finish = {name: 0 for name, _ in jobs}
    for name, _, end in schedule(jobs, quantum):
        finish[name] = end
    return finish


def average_waiting_time(jobs, quantum):
    finish = completion_times(jobs, quantum)
    if not jobs:
        return 0.0
    return sum(finish[name] - burst for name, burst in jobs) / len(jobs)
