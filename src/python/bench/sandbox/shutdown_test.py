"""Stopping the harness kills every registered run once and refuses new ones."""

from __future__ import annotations

import pytest

from bench.sandbox import shutdown


@pytest.fixture(autouse=True)
def fresh_state():
    shutdown._stopping.clear()
    yield
    shutdown._stopping.clear()


def test_stop_all_kills_every_registered_run_and_refuses_new_ones():
    killed: list[str] = []
    first = shutdown.register(lambda: killed.append("first"))
    second = shutdown.register(lambda: killed.append("second"))
    shutdown.unregister(second)  # a run that already ended is not killed
    shutdown.check()  # not stopping yet: nothing raised
    assert shutdown.stop_all() == 1 and killed == ["first"]
    with pytest.raises(shutdown.Stopped):
        shutdown.check()
    shutdown.unregister(first)


def test_a_killer_that_fails_does_not_spare_the_others():
    killed: list[str] = []

    def broken() -> None:
        raise OSError("cgroup already gone")

    tokens = [shutdown.register(broken), shutdown.register(lambda: killed.append("other"))]
    assert shutdown.stop_all() == 2 and killed == ["other"]
    for token in tokens:
        shutdown.unregister(token)


def test_stopped_is_not_a_bench_error():
    from bench.errors import BenchError

    assert issubclass(shutdown.Stopped, KeyboardInterrupt) and not issubclass(shutdown.Stopped, BenchError)
