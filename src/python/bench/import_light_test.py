"""`import bench` (and the CLI's parser) must not import heavy or optional providers."""

from __future__ import annotations

import subprocess
import sys

import bench.cli.main  # noqa: F401  (the child below imports it; this ships it to the test runner)

HEAVY = ("docker", "openai", "matplotlib", "llama_cpp", "httpx", "numpy", "dask", "distributed")


def test_import_bench_and_cli_parser_stay_light():
    code = (
        "import sys, bench, bench.cli.main, bench.score.runner, bench.score.executor, bench.score.remote_unit\n"
        "bench.cli.main.build_parser()\n"
        f"print(','.join(m for m in {HEAVY!r} if m in sys.modules))\n"
    )
    from bench.testing.support import child_env

    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=child_env())
    assert out.stdout.strip() == ""
