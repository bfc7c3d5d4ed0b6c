"""The suite itself: it must catch a backend that does not isolate, and keep its cases well-formed."""

import os
import subprocess

from bench.sandbox import attacks, conformance
from bench.sandbox.protocol import ExecRequest, ExecResult


class NoIsolation:
    """A 'sandbox' that runs the command straight on the host, inheriting everything."""

    name = "no-isolation"

    def run(self, request: ExecRequest) -> ExecResult:
        done = subprocess.run(request.argv, cwd=request.workdir, capture_output=True, input=request.stdin,
                              env={**os.environ, **dict(request.env)}, timeout=request.limits.wall_seconds)
        return ExecResult(exit_code=done.returncode, signal=None, timed_out=False, oom_killed=False,
                          stdout=done.stdout, stderr=done.stderr, stdout_truncated=False, stderr_truncated=False,
                          wall_seconds=0.0, cpu_seconds=0.0)


def test_suite_fails_a_backend_without_isolation(tmp_path):
    cases = (attacks.egress_host_services, attacks.host_env_secret, attacks.read_host_files,
             attacks.nested_user_namespace, attacks.privileges_dropped, attacks.host_processes_hidden)
    results = [one(NoIsolation(), tmp_path, "", tmp_path) for one in cases]
    assert [(r.name, r.passed) for r in results] == [(c.case_name, False) for c in cases]


def test_a_case_that_raises_is_a_failure_with_the_error_in_its_detail(tmp_path):
    class Broken:
        name = "broken"

        def run(self, request):
            raise RuntimeError("backend exploded")

    result = conformance.exit_codes(Broken(), tmp_path, "", tmp_path)
    assert (result.name, result.passed, result.kind) == ("exit_codes", False, "conformance")
    assert result.detail == "raised RuntimeError: backend exploded"


def test_every_case_is_named_and_kinded():
    for one in conformance.all_cases():
        assert one.case_kind in ("conformance", "attack") and one.case_name == one.__name__
