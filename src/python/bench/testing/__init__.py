"""What tests and benchmarks use and the harness never does: running the harness in a child process, real
tasks prepared for end-to-end tests, a misbehaving model endpoint on loopback, a local Dask cluster, the
environment tests' tiny repositories. Nothing outside tests, benchmarks and scripts imports this package."""
