"""Running the harness's work on a Dask cluster: what scoring (``bench.score.dask_executor``) and the gate
(``bench.gate.remote_certify``, ``bench.gate.remote_admit``) share — the client plumbing and the pins a worker's
environment must match."""
