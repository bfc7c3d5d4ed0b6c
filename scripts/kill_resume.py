"""Kill a running `bench score` with SIGKILL at random moments, resume it, and count the records.

    python scripts/kill_resume.py [--kills 20] [--tasks kind:synthetic] [--seed 7]

Prints one line per kill and a final line `kills=… landed=… units=… records=… unique=… lost=…
duplicated=…` (`landed`: kills that hit a running process; a run that had already finished is not killed, so choose enough
--tasks for every kill to land); exits 1 when a record was lost or duplicated. Run from the checkout (or with
BENCH_ROOT set).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def score_command(out: Path, tasks: str, model: str) -> list[str]:
    return [sys.executable, "-m", "bench.cli.main", "score", "--model", model, "--turns", "2",
            "--both-conditions", "--tasks", tasks, "--out", str(out), "--no-report", "--no-cache",
            "--workers", "2"]


def count(out: Path) -> tuple[int, int, int]:
    path = out / "records.jsonl"
    if not path.exists():
        return 0, 0, 0
    data = path.read_bytes()
    complete = data[: data.rfind(b"\n") + 1]
    keys = [tuple(json.loads(line)[k] for k in ("task_id", "model", "condition", "sample"))
            for line in complete.splitlines() if line.strip()]
    return len(keys), len(set(keys)), len(data) - len(complete)


def expected_units(env: dict, args) -> int:
    """How many units the plan has, computed independently of the run (tasks × conditions)."""
    listed = subprocess.run([sys.executable, "-m", "bench.cli.main", "list", args.tasks], env=env,
                            capture_output=True, text=True, check=True)
    return 2 * len([line for line in listed.stdout.splitlines() if line.strip()])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=20)
    parser.add_argument("--tasks", default="kind:synthetic")
    parser.add_argument("--model", default="repairer/ast")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--max-wait", type=float, default=6.0, help="longest run before a kill, seconds")
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(os.path.abspath(p) for p in sys.path if p),
               BENCH_NO_PROGRESS="1")
    with tempfile.TemporaryDirectory(prefix="kill-resume-") as scratch:
        out = Path(scratch) / "out"
        landed = 0
        for number in range(1, args.kills + 1):
            proc = subprocess.Popen(score_command(out, args.tasks, args.model), env=env, start_new_session=True,
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            delay = rng.uniform(0.3, args.max_wait)
            time.sleep(delay)
            finished = proc.poll() is not None
            if not finished:
                os.killpg(proc.pid, signal.SIGKILL)
                landed += 1
            proc.wait()
            total, unique, partial = count(out)
            print(f"kill {number:>2} after {delay:4.1f}s: records={total} unique={unique} "
                  f"partial_tail_bytes={partial}{' (had finished)' if finished else ''}", flush=True)
        final = subprocess.run(score_command(out, args.tasks, args.model), env=env, capture_output=True, text=True)
        if final.returncode != 0:
            print(final.stderr[-2000:], file=sys.stderr)
            return 1
        expected = expected_units(env, args)
        total, unique, partial = count(out)
        lost = expected - unique
        duplicated = total - unique
        print(f"kills={args.kills} landed={landed} units={expected} records={total} unique={unique} lost={lost} "
              f"duplicated={duplicated} partial_tail_bytes={partial}")
        return 0 if lost == 0 and duplicated == 0 and partial == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
