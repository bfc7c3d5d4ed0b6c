"""Admission wall time against the candidate's own 2K test runs (the limit), for one batch, per commit.

    python benchmarks/admission_cost.py --commit d71d71f7 --commit HEAD .bench/candidates/voluptuous/*.json
    python benchmarks/admission_cost.py --commit HEAD --keep /tmp/admission CANDIDATES...

For each commit: a throwaway worktree of this checkout at that commit (its own pool: nothing is written here)
and a cache folder of its own sharing only what a machine builds once (the images, the guard launcher); each
side's tool venv is built before timing starts. The candidates are admitted in the order given, the commits
taking turns candidate by candidate, so the load of this shared machine falls on both alike; a candidate's
repository is read from ``$BENCH_MIRROR_DIR``. Each admission's wall time and phase times come from the
admission log the pipeline writes (bench.mine.pipeline.admit_candidates). Prints per commit: candidates tried
and admitted, median and 90th percentile of wall / own test runs over the admitted candidates and over every
candidate that ran tests, the locking share of the admitted candidates' time, and the medians' ratio between
the first and the last commit. Informative figures of one run: nothing here is asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src" / "python"))

MACHINE_ONCE = ("images", "guard-launcher", "tools")
# One process a commit, as `bench mine --admit` runs a batch: it reads a candidate path and its repository per
# line, admits it, and says "done" (what a batch process keeps between candidates, it keeps here too).
_DRIVER = """
import sys
from pathlib import Path
from bench.mine.pipeline import admit_candidates
root, log_dir = Path(sys.argv[1]), Path(sys.argv[2])
for line in sys.stdin:
    candidate, repo = line.rstrip("\\n").split("\\t")
    admit_candidates((Path(candidate),), root, repo, cap=10**6, mirror=None, sandbox_name="bwrap", log_dir=log_dir)
    print("done", flush=True)
"""
_WARM = """
import json, sys
from pathlib import Path
from bench.environment.image import ensure_image
from bench.environment._lock_steps import tool_environment
image = ensure_image(json.loads(Path(sys.argv[1]).read_text()).get("image", "trixie-py313"), root=Path(sys.argv[2]))
tool_environment(image, "bwrap")
"""


class Side:
    def __init__(self, commit: str, scratch: Path, index: int) -> None:
        self.commit = commit
        self.sha = _git("rev-parse", "--verify", f"{commit}^{{commit}}").strip()
        self.root = scratch / f"checkout-{index}"
        self.cache = scratch / f"cache-{index}"
        self.logs = scratch / f"logs-{index}"
        _git("worktree", "add", "--detach", str(self.root), self.sha)
        self.cache.mkdir()
        self.logs.mkdir()
        from bench.variables import cache_dir

        for name in MACHINE_ONCE:
            if (cache_dir() / name).exists():
                (self.cache / name).symlink_to(cache_dir() / name)

    def forget(self, task_ids: set[str]) -> int:
        """Remove what the worktree's pool holds of these tasks (spec, drop record, retired spec, lock,
        certificate), so they are admitted as new candidates; how many files went."""
        gone = 0
        for folder in ("tasks", "lockfiles/tasks", "results/certificates"):
            for path in (self.root / folder).rglob("*"):
                stem = path.name.split(".json")[0].removesuffix(".lock")
                if path.is_file() and stem in task_ids:
                    path.unlink()
                    gone += 1
        return gone

    def env(self) -> dict[str, str]:
        return dict(os.environ, PYTHONPATH=str(self.root / "src" / "python"), BENCH_ROOT=str(self.root),
                    BENCH_CACHE_DIR=str(self.cache), BENCH_NO_PROGRESS="1")

    def run(self, script: str, *args: str) -> None:
        done = subprocess.run([sys.executable, "-c", script, *args], env=self.env(), cwd=self.root,
                              capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"{self.commit}: {done.stderr.strip()[-2000:]}")

    def start(self) -> None:
        self.driver = subprocess.Popen([sys.executable, "-c", _DRIVER, str(self.root), str(self.logs)],
                                       env=self.env(), cwd=self.root, stdin=subprocess.PIPE,
                                       stdout=subprocess.PIPE, text=True)

    def admit(self, candidate: Path, repo: str) -> None:
        self.driver.stdin.write(f"{candidate}\t{repo}\n")
        self.driver.stdin.flush()
        for line in self.driver.stdout:  # anything else the admission printed is passed on
            if line.strip() == "done":
                return
            sys.stderr.write(line)
        raise SystemExit(f"{self.commit}: the admission process ended (exit {self.driver.wait()})")

    def stop(self) -> None:
        if getattr(self, "driver", None) is not None:
            self.driver.stdin.close()
            self.driver.wait()
            self.driver = None

    def entries(self) -> list[dict]:
        entries: list[dict] = []
        for path in sorted(self.logs.glob("admit-log-*.json")):
            entries.extend(json.loads(path.read_text()))
        return entries

    def remove(self) -> None:
        _git("worktree", "remove", "--force", str(self.root))


def _git(*args: str) -> str:
    return subprocess.run(["git", "-C", str(ROOT), *args], check=True, capture_output=True, text=True).stdout


def ratios(entries: list[dict], admitted_only: bool) -> list[float]:
    return [float(e["seconds"]) / float(e["phases"]["tests"]) for e in entries
            if e.get("phases", {}).get("tests") and (e["outcome"] == "admitted" or not admitted_only)]


def describe(side: Side) -> tuple[str, float]:
    from bench.mine.throughput import percentile, summarise

    entries = side.entries()
    summary = summarise(tuple(entries))
    admitted, ran = ratios(entries, True), ratios(entries, False)
    lock_share = dict(summary.phase_share).get("lock", 0.0)
    line = (f"{side.commit:<12} {side.sha[:8]}  tried {summary.tried:>3}  admitted {summary.admitted:>3}  "
            f"wall/tests admitted: median {percentile(admitted, 0.5):5.2f} p90 {percentile(admitted, 0.9):5.2f}  "
            f"all that ran tests ({len(ran)}): median {percentile(ran, 0.5):5.2f} p90 {percentile(ran, 0.9):5.2f}  "
            f"lock share {lock_share:.1%}  s/admitted {summary.seconds_per_admitted_all_attempts:.1f}")
    return line, percentile(admitted, 0.5)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("candidates", nargs="+", type=Path, help="candidate spec files (bench mine's output)")
    parser.add_argument("--commit", action="append", default=[], help="a commit to measure (repeatable)")
    parser.add_argument("--keep", type=Path, help="keep the worktrees, caches and logs in this folder")
    parser.add_argument("--fresh", action="store_true",
                        help="admit candidates the pool already holds or dropped as new ones (their files are "
                             "removed from each worktree first)")
    args = parser.parse_args(argv)
    commits = args.commit or ["HEAD"]
    if not os.environ.get("BENCH_MIRROR_DIR"):
        parser.error("set BENCH_MIRROR_DIR to the folder of the candidates' repository mirrors")
    scratch = args.keep or Path(tempfile.mkdtemp(prefix="bench-admission-cost-"))
    scratch.mkdir(parents=True, exist_ok=True)
    sides = [Side(commit, scratch, index) for index, commit in enumerate(commits)]
    try:
        ids = {json.loads(c.read_text())["task_id"] for c in args.candidates}
        for side in sides:
            if args.fresh:
                print(f"{side.commit}: {side.forget(ids)} files of the candidates removed from its pool",
                      file=sys.stderr)
            side.run(_WARM, str(args.candidates[0].resolve()), str(side.root))
            side.start()
        for number, candidate in enumerate(args.candidates, 1):
            repo = json.loads(candidate.read_text())["repo"]
            for side in sides:
                print(f"[{number}/{len(args.candidates)}] {side.commit}: {candidate.name}", file=sys.stderr,
                      flush=True)
                side.admit(candidate.resolve(), repo)
        for side in sides:
            side.stop()
        medians = []
        for side in sides:
            line, median = describe(side)
            medians.append(median)
            print(line)
        if len(sides) > 1 and medians[0]:
            print(f"median wall/tests, {commits[-1]} / {commits[0]}: {medians[-1] / medians[0]:.2f}")
        print(f"logs: {' '.join(str(s.logs) for s in sides)}")
    finally:
        for side in sides:
            side.stop()
        if args.keep is None:
            for side in sides:
                side.remove()
            shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
