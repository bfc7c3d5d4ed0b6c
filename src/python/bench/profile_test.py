from __future__ import annotations

import threading

from bench import profile


def _phase(snapshot: dict, name: str) -> dict:
    return snapshot["phases"].get(name, {"calls": 0, "busy_seconds": 0.0, "sandbox_runs": 0, "sandbox_seconds": 0.0})


def test_a_sandboxed_run_counts_towards_the_innermost_phase_and_each_call_is_counted():
    before = profile.snapshot()

    @profile.timed("test-inner")
    def inner():
        profile.sandbox_run(1.5)

    @profile.timed("test-outer")
    def outer():
        profile.sandbox_run(0.25)
        inner()
        profile.sandbox_run(0.25)

    outer()
    outer()
    after = profile.snapshot()
    for name, calls, runs, seconds in (("test-outer", 2, 4, 1.0), ("test-inner", 2, 2, 3.0)):
        old, new = _phase(before, name), _phase(after, name)
        assert (new["calls"] - old["calls"], new["sandbox_runs"] - old["sandbox_runs"],
                round(new["sandbox_seconds"] - old["sandbox_seconds"], 3)) == (calls, runs, seconds)
    assert after["sandbox_runs"] - before["sandbox_runs"] == 6
    assert round(after["sandbox_seconds"] - before["sandbox_seconds"], 3) == 4.0


def test_a_thread_starts_outside_the_phase_of_the_thread_that_started_it():
    before = _phase(profile.snapshot(), profile.OTHER)["sandbox_runs"]

    @profile.timed("test-parent")
    def parent():
        worker = threading.Thread(target=profile.sandbox_run, args=(0.5,))
        worker.start()
        worker.join()

    parent()
    assert _phase(profile.snapshot(), profile.OTHER)["sandbox_runs"] == before + 1
    assert _phase(profile.snapshot(), "test-parent")["sandbox_runs"] == 0


def test_an_exception_leaves_the_phase_and_still_counts_its_time():
    @profile.timed("test-failing")
    def failing():
        raise ValueError("boom")

    try:
        failing()
    except ValueError:
        pass
    profile.sandbox_run(0.0)  # back outside every phase
    assert _phase(profile.snapshot(), "test-failing")["calls"] == 1
