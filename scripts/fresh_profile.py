"""Where a fresh machine's time went: read the logs scripts/fresh_machine.sh keeps (each line prefixed with the
Unix time it was printed) and the main job's BENCH_PROFILE, and print one table per command.

    python scripts/fresh_profile.py WORK      WORK: the folder fresh_machine.sh printed (logs/, repo/)

For each command: Pants' bootstrap, pantsd and scheduler start, every pex build (which and how long; the builds
that hold llama-cpp-python are counted: it compiles llama.cpp), then the command itself. For the main job, the
harness's phases (images, locks, venvs, certification, scoring, probes: busy seconds summed over its threads) and
the sandboxed runs' own wall time, the limit: main job / limit is the figure issue-level targets speak of. For
the tests, the targets' own run time as Pants reports it, summed, and the slowest ten.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

STAMP = re.compile(r"^(\d+\.\d+) (.*)$")
PEX_START = re.compile(r"\[INFO\] Starting: (Building .*)$")
PEX_DONE = re.compile(r"\[INFO\] Completed: (Building .*)$")
# A batch of test files run in one pytest process is summarised under its first file: "✓ a_test.py and 3 other
# files succeeded in 12.50s."
TARGET = re.compile(r"✓ (\S+)(?: and (\d+) other files)? succeeded in ([\d.]+)s")


def stamped(path: Path) -> list[tuple[float, str]]:
    lines = []
    for raw in path.read_text(encoding="utf-8", errors="replace").splitlines():
        match = STAMP.match(raw)
        if match:
            lines.append((float(match.group(1)), match.group(2)))
    return lines


def phases(lines: list[tuple[float, str]]) -> tuple[list[tuple[str, float]], list[tuple[str, float]], float]:
    """(Pants' own start-up steps, pex builds, the seconds after the last of them) of one command's log."""
    if not lines:
        return [], [], 0.0
    start, end = lines[0][0], lines[-1][0]
    steps, builds, open_builds = [], [], {}
    last = start
    for when, text in lines:
        if text.startswith("[bootstrap-pants] done"):
            steps.append(("Pants bootstrap", when - start))
            last = when
        elif "Scheduler initialized." in text:
            steps.append(("pantsd and scheduler start", when - last))
            last = when
        elif PEX_START.search(text):
            open_builds[PEX_START.search(text).group(1)] = when
        elif PEX_DONE.search(text):
            name = PEX_DONE.search(text).group(1)
            builds.append((name, when - open_builds.pop(name, when)))
            last = max(last, when)
    return steps, builds, end - last


def short(name: str) -> str:
    return name if len(name) <= 90 else name[:87] + "..."


def report_command(title: str, log: Path, profile: Path | None) -> None:
    lines = stamped(log) if log.is_file() else []  # one command run alone leaves the other's log absent
    if not lines:
        print(f"== {title}: no timestamped log at {log}")
        return
    steps, builds, rest = phases(lines)
    total = lines[-1][0] - lines[0][0]
    print(f"== {title}: {total:.0f} s")
    for name, seconds in steps:
        print(f"  {seconds:8.1f} s  {name}")
    llama = [b for b in builds if "llama-cpp-python" in b[0]]
    cut = [b for b in builds if "characters truncated" in b[0] and b not in llama]  # Pants shortens long lists
    for name, seconds in builds:
        print(f"  {seconds:8.1f} s  pex: {short(name)}")
    print(f"  pex builds: {len(builds)}, {sum(s for _, s in builds):.0f} s; holding llama-cpp-python (a llama.cpp "
          f"compile each): {len(llama)}" + (f", and {len(cut)} whose requirement list Pants cut short" if cut else ""))
    print(f"  {rest:8.1f} s  after the last pex build (the command itself, and builds overlapping it)")
    targets = [(m.group(1), int(m.group(2) or 0), float(m.group(3)))
               for _, text in lines for m in [TARGET.search(text)] if m]
    if targets:
        print(f"  test runs: {len(targets)} holding {sum(1 + others for _, others, _ in targets)} test files, their "
              f"own run time summed {sum(s for _, _, s in targets):.0f} s; slowest:")
        for name, others, seconds in sorted(targets, key=lambda t: -t[2])[:10]:
            print(f"  {seconds:8.1f} s    {name}" + (f" and {others} other files" if others else ""))
    if profile is not None and profile.is_file():
        data = json.loads(profile.read_text())
        print("  harness phases (busy seconds over its threads; sandboxed runs' own wall time):")
        for name, row in sorted(data["phases"].items(), key=lambda item: -item[1]["busy_seconds"]):
            print(f"  {row['busy_seconds']:8.1f} s    {name:<8} {row['calls']:>5} calls, {row['sandbox_runs']:>5} "
                  f"sandboxed runs {row['sandbox_seconds']:8.1f} s")
        tests = sum(row["sandbox_seconds"] for name, row in data["phases"].items()
                    if name in ("certify", "score", "probes"))
        print(f"  limit: sandboxed test runs (certify, score, probes) {tests:.0f} s of {data['sandbox_seconds']:.0f} s "
              f"sandboxed in all; the command took {total / tests:.2f}x its test runs" if tests else
              "  limit: no sandboxed test run recorded")


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    work = Path(sys.argv[1])
    report_command("main job", work / "logs" / "score.log", work / "logs" / "profile-score.json")
    report_command("tests", work / "logs" / "test.log", None)
    built = llama_wheels_built(work / "home")
    if built is not None:
        print(f"== llama.cpp wheels compiled (pex's cache in the fresh HOME): {built}")
    return 0


def llama_wheels_built(home: Path) -> int | None:
    """How many llama-cpp-python wheels pex built from the sdist under ``home`` (one per compile), or None when
    there is no pex cache there. Pants shortens long requirement lists in its log, so the log cannot tell."""
    cache = home / ".cache/pants/named_caches/pex_root/built_wheels"
    if not cache.is_dir():
        return None
    return sum(1 for _ in cache.glob("sdists/llama_cpp_python-*/*/*/llama_cpp_python-*.whl"))


if __name__ == "__main__":
    sys.exit(main())
