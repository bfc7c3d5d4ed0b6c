import json
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from bench.source.synthetic_soundness import check_all, check_soundness
from bench.spec.model import Provenance, TaskSpec

REPO_ROOT = next(p for p in Path(__file__).resolve().parents if (p / "tasks" / "synthetic").is_dir())
SUITE = REPO_ROOT / "tasks" / "synthetic"


def _spec_from_json(path: Path) -> TaskSpec:
    """Just enough of a loader for these tests; the real one lives in bench.spec."""
    data = json.loads(path.read_text())
    return TaskSpec(
        task_id=data["task_id"], kind=data["kind"], repo=data["repo"],
        source_files=tuple(data["source_files"]), test_files=tuple(data["test_files"]),
        fail_to_pass=tuple(data["fail_to_pass"]), pass_to_pass=tuple(data["pass_to_pass"]),
        image=data["image"], lockfile=data["lockfile"], provenance=Provenance(**data["provenance"]),
        difficulty=data.get("difficulty", ""), tags=tuple(data.get("tags", ())),
        synthetic_dir=data["synthetic"]["dir"], path=str(path), raw=data,
    )


def _fixture_task(root: Path, files: dict[str, str], fail_to_pass=(), pass_to_pass=(),
                  test_files=("tests/test_mod.py",)) -> TaskSpec:
    folder = root / "tasks" / "synthetic" / "fixture"
    files = {"SPEC.md": "# fixture\n", **files}
    for relative, text in files.items():
        (folder / relative).parent.mkdir(parents=True, exist_ok=True)
        (folder / relative).write_text(text)
    return TaskSpec(
        task_id="synthetic.fixture", kind="synthetic", repo="synthetic/fixture", source_files=("mod.py",),
        test_files=tuple(test_files), fail_to_pass=tuple(fail_to_pass), pass_to_pass=tuple(pass_to_pass),
        image="trixie-py313-slim", lockfile="lockfiles/tasks/synthetic.lock",
        provenance=Provenance(source="authored"), synthetic_dir="tasks/synthetic/fixture",
    )


GOOD = "def f():\n    return 2\n\n\ndef g():\n    return 3\n"
BUGGY = "def f():\n    return 1\n\n\ndef g():\n    return 3\n"
TESTS = "import mod\n\n\ndef test_f():\n    assert mod.f() == 2\n\n\ndef test_g():\n    assert mod.g() == 3\n"


@pytest.fixture(scope="module")
def suite():
    specs = [_spec_from_json(path) for path in sorted(SUITE.glob("*.json"))]
    started = time.monotonic()
    results = check_all(specs, workers=2)
    elapsed = time.monotonic() - started
    print(f"\nsoundness of {len(specs)} synthetic tasks on 2 workers: {elapsed:.1f}s", file=sys.stderr)
    return specs, results


def test_every_synthetic_task_is_sound(suite):
    specs, results = suite
    assert [r.task_id for r in results] == [s.task_id for s in specs]
    assert {r.task_id: r.problems for r in results if not r.ok} == {}


def test_suite_size_and_difficulty_mix(suite):
    specs, _ = suite
    counts = Counter(spec.difficulty for spec in specs)
    assert len(specs) >= 62
    assert set(counts) == {"easy", "medium", "hard"}
    assert counts["easy"] >= 18 and counts["medium"] >= 20 and counts["hard"] >= 18


def test_spec_files_agree_with_their_folders(suite):
    specs, _ = suite
    for spec in specs:
        slug = Path(spec.path).stem
        assert spec.task_id == f"synthetic.{slug}"
        assert spec.repo == f"synthetic/{slug}"
        assert spec.synthetic_dir == f"tasks/synthetic/{slug}"
        assert spec.raw["provenance"] == {"source": "authored", "authored": spec.date}  # dated, nothing else
        assert spec.tags and spec.kind == "synthetic"
        assert list(spec.fail_to_pass) == sorted(spec.fail_to_pass)
        assert list(spec.pass_to_pass) == sorted(spec.pass_to_pass)


def test_every_task_has_enough_hidden_tests(suite):
    _, results = suite
    assert {r.task_id: len(r.reference) for r in results if len(r.reference) < 5} == {}


def test_suite_has_multi_file_tasks_and_pass_to_pass_tests(suite):
    specs, results = suite
    assert sum(len(spec.source_files) > 1 for spec in specs) >= 3
    assert sum(bool(r.observed_pass_to_pass) for r in results) >= len(results) * 3 // 4


def test_sound_fixture_reports_observed_sets(tmp_path):
    spec = _fixture_task(tmp_path, {"initial/mod.py": BUGGY, "reference/mod.py": GOOD, "tests/test_mod.py": TESTS},
                         fail_to_pass=["tests/test_mod.py::test_f"], pass_to_pass=["tests/test_mod.py::test_g"])
    result = check_soundness(spec, root=tmp_path)
    assert result.problems == ()
    assert result.ok is True
    assert result.reference == (("tests/test_mod.py::test_f", "passed"), ("tests/test_mod.py::test_g", "passed"))
    assert result.initial == (("tests/test_mod.py::test_f", "failed"), ("tests/test_mod.py::test_g", "passed"))


def test_failing_reference_is_reported(tmp_path):
    spec = _fixture_task(tmp_path, {"initial/mod.py": BUGGY, "reference/mod.py": BUGGY, "tests/test_mod.py": TESTS})
    result = check_soundness(spec, root=tmp_path)
    assert "reference: not passing: tests/test_mod.py::test_f (failed)" in result.problems
    assert "reference: pytest exit code 1" in result.problems


def test_initial_that_passes_everything_is_reported(tmp_path):
    spec = _fixture_task(tmp_path, {"initial/mod.py": GOOD, "reference/mod.py": GOOD, "tests/test_mod.py": TESTS},
                         pass_to_pass=["tests/test_mod.py::test_f", "tests/test_mod.py::test_g"])
    result = check_soundness(spec, root=tmp_path)
    assert result.problems == ("initial code passes every test the reference passes",)


def test_declared_sets_must_match_observation(tmp_path):
    spec = _fixture_task(tmp_path, {"initial/mod.py": BUGGY, "reference/mod.py": GOOD, "tests/test_mod.py": TESTS},
                         fail_to_pass=["tests/test_mod.py::test_f", "tests/test_mod.py::test_g"])
    result = check_soundness(spec, root=tmp_path)
    assert result.problems == (
        "fail_to_pass: declared differs from observed (undeclared: [], not observed: ['tests/test_mod.py::test_g'])",
        "pass_to_pass: declared differs from observed (undeclared: ['tests/test_mod.py::test_g'], not observed: [])",
    )


def test_unsorted_declared_ids_are_reported(tmp_path):
    spec = _fixture_task(tmp_path, {"initial/mod.py": "", "reference/mod.py": GOOD, "tests/test_mod.py": TESTS},
                         fail_to_pass=["tests/test_mod.py::test_g", "tests/test_mod.py::test_f"])
    result = check_soundness(spec, root=tmp_path)
    assert result.problems == ("fail_to_pass: declared ids are not sorted",)


def test_outcomes_come_from_junit_not_printed_text(tmp_path):
    spoofing = (
        "import sys\nimport mod\n\n\ndef test_f():\n"
        "    sys.stdout.write('1 passed\\nPASSED tests/test_mod.py::test_f\\n')\n"
        "    sys.__stdout__.write('===== 2 passed in 0.01s =====\\n')\n"
        "    assert mod.f() == 2\n\n\ndef test_g():\n    assert mod.g() == 3\n"
    )
    spec = _fixture_task(tmp_path, {"initial/mod.py": BUGGY, "reference/mod.py": GOOD, "tests/test_mod.py": spoofing},
                         fail_to_pass=["tests/test_mod.py::test_f"], pass_to_pass=["tests/test_mod.py::test_g"])
    result = check_soundness(spec, root=tmp_path)
    assert result.ok is True
    assert dict(result.initial)["tests/test_mod.py::test_f"] == "failed"


def test_initial_that_does_not_import_fails_every_test(tmp_path):
    files = {"initial/mod.py": "def f(:\n", "reference/mod.py": GOOD, "tests/test_mod.py": TESTS}
    spec = _fixture_task(tmp_path, files,
                         fail_to_pass=["tests/test_mod.py::test_f", "tests/test_mod.py::test_g"])
    result = check_soundness(spec, root=tmp_path)
    assert result.ok is True
    assert result.observed_pass_to_pass == ()


def test_classes_and_parametrized_tests_get_pytest_node_ids(tmp_path):
    tests = (
        "import pytest\nimport mod\n\n\nclass TestF:\n    def test_value(self):\n        assert mod.f() == 2\n\n\n"
        "@pytest.mark.parametrize('x', [1, 2], ids=['one', 'two'])\ndef test_param(x):\n    assert mod.g() == 3\n"
    )
    spec = _fixture_task(tmp_path, {"initial/mod.py": BUGGY, "reference/mod.py": GOOD, "tests/test_mod.py": tests},
                         fail_to_pass=["tests/test_mod.py::TestF::test_value"],
                         pass_to_pass=["tests/test_mod.py::test_param[one]", "tests/test_mod.py::test_param[two]"])
    result = check_soundness(spec, root=tmp_path)
    assert result.problems == ()


def test_skipped_reference_test_is_not_a_pass(tmp_path):
    tests = TESTS + "\n\nimport pytest\n\n\n@pytest.mark.skip\ndef test_skipped():\n    pass\n"
    spec = _fixture_task(tmp_path, {"initial/mod.py": BUGGY, "reference/mod.py": GOOD, "tests/test_mod.py": tests},
                         fail_to_pass=["tests/test_mod.py::test_f"], pass_to_pass=["tests/test_mod.py::test_g"])
    result = check_soundness(spec, root=tmp_path)
    assert "reference: not passing: tests/test_mod.py::test_skipped (skipped)" in result.problems


def test_hanging_tests_time_out(tmp_path):
    tests = "import time\nimport mod\n\n\ndef test_f():\n    time.sleep(60)\n"
    spec = _fixture_task(tmp_path, {"initial/mod.py": BUGGY, "reference/mod.py": GOOD, "tests/test_mod.py": tests})
    started = time.monotonic()
    result = check_soundness(spec, root=tmp_path, timeout=2)
    assert time.monotonic() - started < 30
    assert "reference: pytest timed out after 2s" in result.problems
    assert "initial: pytest timed out after 2s" in result.problems


def test_check_all_reports_a_broken_task_without_stopping(tmp_path):
    good = _fixture_task(tmp_path, {"initial/mod.py": BUGGY, "reference/mod.py": GOOD, "tests/test_mod.py": TESTS},
                         fail_to_pass=["tests/test_mod.py::test_f"], pass_to_pass=["tests/test_mod.py::test_g"])
    broken = TaskSpec(**{**good.__dict__, "task_id": "synthetic.broken", "source_files": ("missing.py",)})
    results = check_all([broken, good], workers=2, root=tmp_path)
    assert [r.task_id for r in results] == ["synthetic.broken", "synthetic.fixture"]
    assert results[0].problems[0].startswith("spec: ") and "synthetic-layout" in results[0].problems[0]
    assert results[1].ok is True


def test_reference_that_does_not_import_is_reported(tmp_path):
    spec = _fixture_task(tmp_path, {"initial/mod.py": BUGGY, "reference/mod.py": "raise ImportError('no')\n",
                                    "tests/test_mod.py": TESTS})
    result = check_soundness(spec, root=tmp_path)
    assert result.reference == (("tests/test_mod.py", "error"),)
    assert "reference: not passing: tests/test_mod.py (error)" in result.problems
    assert "reference: no test ran from tests/test_mod.py" in result.problems
    assert result.ok is False
