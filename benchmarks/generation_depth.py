"""Probe generation against the nesting of an observed value: the time ``bench.probes.generate`` takes to make
40 calls around one argument nested D deep (a list holding the level below, a dict holding it and a tuple
holding it), for D = 1 … N, and a digest of the calls (the same calls whatever the speed).

    python benchmarks/generation_depth.py [--depth 8]

An in-place site's object can hold a tree (boltons' IndexedSet, a parser's state): before a container's parts
were made once and shared by both of its branches, each level doubled the work (depth 5: 290 s; now seconds).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time


def nested(depth: int) -> list:
    value = ["i", "1"]
    for level in range(depth):
        value = ["l", [value, ["d", [[["s", f"k{level}"], value]]], ["t", [value, ["s", "x"]]]]]
    return value


def main(argv=None) -> int:
    from bench.probes.generate import generate

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=8)
    args = parser.parse_args(argv)

    def text(v) -> str:
        return json.dumps(v, sort_keys=True, separators=(",", ":"), ensure_ascii=True)

    first = None
    for depth in range(1, args.depth + 1):
        started = time.perf_counter()
        calls = generate([(text(["l", [nested(depth)]]), text(["d", []]))], method=False, limit=40)
        elapsed = time.perf_counter() - started
        first = first or elapsed
        digest = hashlib.sha256(text(calls).encode()).hexdigest()[:16]
        print(f"depth {depth}: {len(calls)} calls in {elapsed:.2f} s ({elapsed / first:.1f}x depth 1), calls {digest}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
