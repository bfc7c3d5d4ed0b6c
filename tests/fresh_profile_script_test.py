"""scripts/fresh_profile.py reads fresh_machine.sh's stamped logs: Pants' start-up, each pex build and how many
hold llama-cpp-python, the test targets' own time, and the main job against its sandboxed test runs."""

import json
import subprocess
import sys

from bench.testing.support import checkout_root

SCRIPT = checkout_root() / "scripts" / "fresh_profile.py"
LLAMA = "Building 14 requirements for requirements.pex from the lockfiles/python-default.lock resolve: llama-cpp-python[server]==0.3.36"
CUT = "Building 11 requirements for score.pex from the resolve: bm25s<0.4, docker<8.... (107 characters truncated)"
SCORE = [
    (1000.0, "[bootstrap-pants] bootstrapping Pants 2.17.1 (one time)"),
    (1040.0, "[bootstrap-pants] done"),
    (1065.0, "12:00:00.00 [INFO] Scheduler initialized."),
    (1066.0, "12:00:01.00 [INFO] Starting: Building local_dists.pex"),
    (1096.0, "12:00:31.00 [INFO] Completed: Building local_dists.pex"),
    (1100.0, f"12:00:35.00 [INFO] Starting: {CUT}"),
    (1110.0, f"12:00:45.00 [INFO] Completed: {CUT}"),
    (1400.0, "tiers: 134 units"),
]
TESTS = [
    (2000.0, "12:10:00.00 [INFO] Scheduler initialized."),
    (2001.0, f"12:10:01.00 [INFO] Starting: {LLAMA}"),
    (2601.0, f"12:20:01.00 [INFO] Completed: {LLAMA}"),
    (2700.0, "✓ src/python/bench/a_test.py:../tests and 3 other files succeeded in 12.50s."),
    (2800.0, "✓ tests/b_test.py:tests succeeded in 80.00s."),
]


def _write(path, lines):
    path.write_text("".join(f"{when:.3f} {text}\n" for when, text in lines))


def test_the_profile_names_each_step_the_llama_compiles_and_the_main_job_against_its_limit(tmp_path):
    (tmp_path / "logs").mkdir()
    _write(tmp_path / "logs" / "score.log", SCORE)
    _write(tmp_path / "logs" / "test.log", TESTS)
    (tmp_path / "logs" / "profile-score.json").write_text(json.dumps({
        "phases": {"certify": {"calls": 67, "busy_seconds": 150.0, "sandbox_runs": 402, "sandbox_seconds": 100.0},
                   "score": {"calls": 134, "busy_seconds": 300.0, "sandbox_runs": 400, "sandbox_seconds": 100.0},
                   "lock": {"calls": 1, "busy_seconds": 30.0, "sandbox_runs": 2, "sandbox_seconds": 25.0}},
        "sandbox_runs": 804, "sandbox_seconds": 225.0}))
    out = subprocess.run([sys.executable, str(SCRIPT), str(tmp_path)], capture_output=True, text=True, check=True)
    lines = [line.strip() for line in out.stdout.splitlines()]
    assert lines[0] == "== main job: 400 s"
    assert "40.0 s  Pants bootstrap" in lines and "25.0 s  pantsd and scheduler start" in lines
    assert "30.0 s  pex: Building local_dists.pex" in lines
    assert "pex builds: 2, 40 s; holding llama-cpp-python (a llama.cpp compile each): 0, and 1 whose requirement " \
           "list Pants cut short" in lines
    assert "limit: sandboxed test runs (certify, score, probes) 200 s of 225 s sandboxed in all; the command " \
           "took 2.00x its test runs" in lines
    tests = lines[lines.index("== tests: 800 s"):]
    assert "pex builds: 1, 600 s; holding llama-cpp-python (a llama.cpp compile each): 1" in tests
    assert "test runs: 2 holding 5 test files, their own run time summed 92 s; slowest:" in tests
    assert tests[-2:] == ["80.0 s    tests/b_test.py:tests",
                          "12.5 s    src/python/bench/a_test.py:../tests and 3 other files"]


def test_a_command_run_alone_leaves_the_other_reported_as_missing(tmp_path):
    """The test command run by itself (as CI runs it): no main-job log, a line saying so, the tests profiled."""
    (tmp_path / "logs").mkdir()
    _write(tmp_path / "logs" / "test.log", [(100.0, "[INFO] Starting: Building pytest.pex from x"),
                                            (130.0, "[INFO] Completed: Building pytest.pex from x"),
                                            (140.0, "✓ tests/a_test.py succeeded in 2.50s.")])
    done = subprocess.run([sys.executable, str(SCRIPT), str(tmp_path)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert f"== main job: no timestamped log at {tmp_path / 'logs' / 'score.log'}" in done.stdout
    assert "== tests:" in done.stdout and "tests/a_test.py" in done.stdout


def test_the_llama_cpp_compiles_are_counted_from_pexs_cache_in_the_fresh_home(tmp_path):
    (tmp_path / "logs").mkdir()
    _write(tmp_path / "logs" / "test.log", TESTS)
    sdist = tmp_path / "home/.cache/pants/named_caches/pex_root/built_wheels/sdists/llama_cpp_python-0.3.36.tar.gz"
    wheel = sdist / "832db069" / "cp311-cp311-manylinux_2_36_x86_64"
    wheel = wheel / "llama_cpp_python-0.3.36-py3-none-linux_x86_64.whl"
    wheel.parent.mkdir(parents=True)
    wheel.write_bytes(b"")
    out = subprocess.run([sys.executable, str(SCRIPT), str(tmp_path)], capture_output=True, text=True, check=True)
    assert out.stdout.splitlines()[-1] == "== llama.cpp wheels compiled (pex's cache in the fresh HOME): 1"
    (tmp_path / "home").rename(tmp_path / "elsewhere")  # no fresh HOME kept: no line rather than a false 0
    out = subprocess.run([sys.executable, str(SCRIPT), str(tmp_path)], capture_output=True, text=True, check=True)
    assert "llama.cpp wheels compiled" not in out.stdout
