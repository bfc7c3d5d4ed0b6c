"""A replay is started beside a test run only where a core is spare for both."""

from __future__ import annotations

import threading

from bench.score import spare_core


def test_two_runs_fit_on_two_idle_cores_and_not_beside_a_third(monkeypatch):
    monkeypatch.setattr(spare_core, "cores", lambda: 2)
    assert spare_core.spare_for(2)  # one unit alone: its run and its replay, one core each
    with spare_core.busy():  # another worker's test run
        assert spare_core.spare_for(1) and not spare_core.spare_for(2)
    assert spare_core.spare_for(2)


def test_a_run_that_raises_is_no_longer_counted(monkeypatch):
    monkeypatch.setattr(spare_core, "cores", lambda: 1)
    try:
        with spare_core.busy():
            raise RuntimeError("the sandbox failed")
    except RuntimeError:
        pass
    assert spare_core.spare_for(1)


def test_counts_from_many_threads_come_back_to_zero(monkeypatch):
    monkeypatch.setattr(spare_core, "cores", lambda: 1)
    started, release = threading.Barrier(9), threading.Event()

    def run():
        with spare_core.busy():
            started.wait()
            release.wait()

    threads = [threading.Thread(target=run) for _ in range(8)]
    for thread in threads:
        thread.start()
    started.wait()
    assert not spare_core.spare_for(1)
    release.set()
    for thread in threads:
        thread.join()
    assert spare_core.spare_for(1)
