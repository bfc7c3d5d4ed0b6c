"""Certifying the same tasks two ways: pinned, cached environments vs. the naive way.

    python benchmarks/certify_cached_vs_naive.py [SELECTOR] [--k 3]

cached — `bench certify --no-cache`: the task's lock-pinned venv comes from the env-key cache (built once
         before timing starts), so each task only lays out workspaces and runs its tests K times each side.
naive  — what a harness without pinned environments does per task and side: a fresh venv, an unpinned
         `pip install -e .[extras]` (plus pytest) from the index, then the same K test runs. It runs in the
         same sandbox (the repository's build backend is untrusted), reaching the index only through the
         allowlist proxy.
Prints per-task seconds for both and the ratio naive / cached, measured in one run.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from bench.environment.image import ensure_image, unpack_image
from bench.gate.certify import GATE_LIMITS, certify
from bench.sandbox.index_proxy import IndexProxy
from bench.sandbox.protocol import ExecRequest, Limits, NetworkPolicy
from bench.sandbox.registry import get_sandbox
from bench.source.workspace import prepare
from bench.spec.load import discover, load_all, select
from bench.testing.support import checkout_root
from bench.verdict.run_tests import BASE_ENV, pytest_argv

INSTALL_LIMITS = Limits(wall_seconds=900.0, memory_bytes=4 << 30, pids=1024, cpus=2.0, output_bytes=4 << 20)
EXTRAS = ("test", "tests", "testing", "dev")


def naive_side(spec, side: str, k: int, scratch: Path, sandbox, image, image_root, proxy) -> None:
    repo = prepare(spec, side, scratch / side / "work").path
    # The backend wires the proxy in (socket, forwarder, HTTPS_PROXY, CA bundle) for INDEX_PROXY requests.
    env = tuple(BASE_ENV) + (("PIP_CONFIG_FILE", "/dev/null"), ("HOME", "/tmp"), ("PATH", "/usr/bin:/bin"))
    script = (
        "set -e; python3 -m venv /work/.naive-venv; "
        "/work/.naive-venv/bin/pip install -q pytest; "
        f"for x in {' '.join(EXTRAS)}; do /work/.naive-venv/bin/pip install -q -e \".[$x]\" && break || true; done; "
        "/work/.naive-venv/bin/pip install -q -e . || true"
    )
    result = sandbox.run(ExecRequest(
        argv=("/bin/sh", "-c", script), workdir=repo, image_root=image_root,
        image_digest=image.digest, env=env, limits=INSTALL_LIMITS, network=NetworkPolicy.INDEX_PROXY,
        proxy_socket=proxy.socket_path))
    if result.exit_code != 0:
        print(f"  naive install failed for {spec.task_id}/{side}: {result.stderr[-300:]!r}", file=sys.stderr)
    for _ in range(k):
        sandbox.run(ExecRequest(argv=pytest_argv("/work/.naive-venv/bin/python", "/tmp/junit.xml",
                                                 spec.test_files),
                                workdir=repo, image_root=image_root, image_digest=image.digest,
                                env=tuple(BASE_ENV), limits=GATE_LIMITS))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("selector", nargs="?", default="kind:pr")
    parser.add_argument("--k", type=int, default=3)
    parser.add_argument("--sandbox", default="bwrap")
    args = parser.parse_args(argv)
    root = checkout_root()
    specs = select(load_all(discover(root)), args.selector)
    sandbox = get_sandbox(args.sandbox)
    for spec in specs:  # warm the env-key cache: building it once is what the cache is for
        certify(spec, root, k=1, sandbox_name=args.sandbox, use_cache=False)
    total_cached = total_naive = 0.0
    print(f"{'task':<32} {'cached s':>9} {'naive s':>9} {'ratio':>6}")
    with IndexProxy() as proxy:
        for spec in specs:
            started = time.perf_counter()
            certify(spec, root, k=args.k, sandbox_name=args.sandbox, use_cache=False)
            cached = time.perf_counter() - started
            image = ensure_image(spec.image, root=root)
            started = time.perf_counter()
            with tempfile.TemporaryDirectory(prefix="bench-naive-") as scratch:
                for side in ("base", "fix"):
                    naive_side(spec, side, args.k, Path(scratch), sandbox, image, unpack_image(image), proxy)
            naive = time.perf_counter() - started
            total_cached += cached
            total_naive += naive
            print(f"{spec.task_id:<32} {cached:>9.1f} {naive:>9.1f} {naive / cached:>6.2f}", flush=True)
    print(f"{'total':<32} {total_cached:>9.1f} {total_naive:>9.1f} {total_naive / total_cached:>6.2f}")
    print(f"naive / cached certification time = {total_naive / total_cached:.2f}x over {len(specs)} tasks, K={args.k}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
