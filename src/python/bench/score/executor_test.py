from __future__ import annotations

import pytest

from bench.errors import UsageError
from bench.score.executor import ExecutionStats, LocalExecutor, get_executor


def test_no_cluster_address_means_local_threads():
    executor = get_executor("", workers=3)
    assert isinstance(executor, LocalExecutor) and executor.workers == 3
    assert get_executor(None, workers=0).workers == 1


@pytest.mark.parametrize("address", ["127.0.0.1:8786", "udp://host:1", "tcp://"])
def test_an_address_without_a_known_scheme_is_a_usage_error(address):
    with pytest.raises(UsageError, match="tcp://HOST:8786"):
        get_executor(address, workers=1)


def test_a_tcp_address_picks_the_dask_backend_without_connecting():
    executor = get_executor("tcp://127.0.0.1:1", workers=1)
    assert executor.name == "dask" and executor.address == "tcp://127.0.0.1:1"


def test_stats_line_names_each_worker_count_and_retries():
    stats = ExecutionStats("dask tcp://h:1", (("tcp://a:1", 7), ("tcp://b:2", 5)), retries=2, lost=1)
    assert stats.lines() == ["executor dask tcp://h:1: units per worker: tcp://a:1 7, tcp://b:2 5; retried 2; "
                             "lost to dead workers 1"]
