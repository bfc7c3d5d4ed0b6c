"""The adequacy pass end to end on a constructed task whose fix is a one-line condition change: every near miss
of the fixed function runs in the sandbox, and exactly the ones the tests cannot tell from the fix survive."""

from __future__ import annotations

import json
from pathlib import Path

from bench.testing.support import checkout_root, empty_checkout, run_bench

BUGGY = ("def clip(x, low, high):\n    if x < low:\n        return low\n    if x < high:\n        return high\n"
         "    return x\n")
FIXED = BUGGY.replace("if x < high:", "if x > high:")
TESTS = ("from clip import clip\n\n\ndef test_inside():\n    assert clip(5, 0, 10) == 5\n\n\n"
         "def test_below():\n    assert clip(-1, 0, 10) == 0\n\n\ndef test_above():\n    assert clip(11, 0, 10) == 10\n")


def _checkout(tmp_path: Path) -> Path:
    root = empty_checkout(tmp_path / "bench-root")
    lock = "lockfiles/tasks/synthetic.lock"
    (root / lock).write_bytes((checkout_root() / lock).read_bytes())
    folder = root / "tasks" / "synthetic" / "clip"
    for part, files in (("initial", {"clip.py": BUGGY}), ("reference", {"clip.py": FIXED}),
                        ("tests", {"test_clip.py": TESTS})):
        (folder / part).mkdir(parents=True)
        for name, text in files.items():
            (folder / part / name).write_text(text)
    (folder / "SPEC.md").write_text("clip(x, low, high) keeps x within [low, high].\n")
    spec = {"schema_version": 1, "task_id": "synthetic.clip", "kind": "synthetic", "repo": "synthetic/clip",
            "source_files": ["clip.py"], "test_files": ["tests/test_clip.py"],
            "fail_to_pass": ["tests/test_clip.py::test_above", "tests/test_clip.py::test_inside"],
            "pass_to_pass": ["tests/test_clip.py::test_below"], "image": "trixie-py313-slim", "lockfile": lock,
            "provenance": {"source": "authored"}, "difficulty": "easy", "synthetic": {"dir": "tasks/synthetic/clip"}}
    (root / "tasks" / "synthetic" / "clip.json").write_text(json.dumps(spec))
    return root


def test_near_misses_of_a_one_line_condition_fix_are_killed_unless_the_tests_cannot_tell(tmp_path):
    root = _checkout(tmp_path)
    env = {"BENCH_ROOT": str(root)}
    done = run_bench("adequacy", "synthetic.clip", "--no-cache", cwd=root, env=env, timeout=900)
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads((root / "results" / "adequacy" / "synthetic.clip.json").read_text())
    # The boundaries x == low and x == high are not tested, and there `<` / `<=` and `>` / `>=` agree anyway:
    # those two comparison near misses survive. Caught: either condition negated (`x >= low`, `x <= high`) and
    # the ten wrong-variable near misses (each of the five statements reading one of the two parameters it
    # does not mention). No `return None`: clip returns a value on every path.
    assert [(s[1], s[2]) for s in result["survivors"]] == [("comparison", 2), ("comparison", 4)]
    assert (result["made"], result["run"], result["killed"]) == (14, 14, 12)
