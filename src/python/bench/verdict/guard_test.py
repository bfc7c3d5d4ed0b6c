import json
import os

from bench.verdict.guard import changed_lines, prepare_guard, violations


def test_changed_lines_are_the_inserted_and_replaced_lines_of_the_edited_text():
    before = [("a.py", "one\ntwo\nthree\n"), ("b.py", "same\n")]
    after = [("a.py", "one\nTWO\nthree\nfour\n"), ("b.py", "same\n")]
    assert changed_lines(before, after) == {"a.py": [2, 4]}


def test_changed_lines_of_a_pure_deletion_is_empty():
    assert changed_lines([("a.py", "x\ny\n")], [("a.py", "x\n")]) == {"a.py": []}


def test_guard_layout_protects_tests_and_runner_files_and_adds_canaries(tmp_path):
    run = tmp_path / "work"
    (run / "tests").mkdir(parents=True)
    (run / "tests" / "test_a.py").write_text("def test_a():\n    pass\n")
    (run / "tests" / "conftest.py").write_text("")
    (run / "setup.cfg").write_text("")
    report = tmp_path / "report"
    report.mkdir()
    guarded = prepare_guard(run_dir=run, guard_host=tmp_path / "guard", guard_sandbox="/run/g",
                            report_host=report, report_sandbox="/run/r", python="/venv/bin/python",
                            test_files=["tests/test_a.py"], changed={"m.py": [3]})
    assert guarded.argv_prefix == ("/venv/bin/python", "/run/g/launcher.py", "/run/g/config.json")
    config = json.loads((tmp_path / "guard" / "config.json").read_text())
    assert config["protected"] == ["setup.cfg", "tests/conftest.py", "tests/test_a.py"]
    assert config["changed"] == {"m.py": [3]}
    assert config["report"] == "/run/r/junit.xml" and config["marker"].startswith("/run/r/marker-")
    read_only = {m.sandbox_path for m in guarded.mounts if not m.writable}
    assert {"/run/g", "/work/setup.cfg", "/work/tests/conftest.py", "/work/tests/test_a.py",
            f"/work/{guarded.canary_file}"} == read_only
    canary = (run / guarded.canary_file).read_text()
    assert [outcome for _, outcome in guarded.canaries] == ["passed", "failed"]
    for test_id, _ in guarded.canaries:
        assert f"def {test_id.split('::')[1]}()" in canary
    assert oct(os.stat(guarded.marker_host).st_mode & 0o777) == "0o666"


def test_violations_are_read_from_the_marker_and_garbage_is_itself_a_violation(tmp_path):
    report = tmp_path / "report"
    report.mkdir()
    (tmp_path / "w").mkdir()
    guarded = prepare_guard(run_dir=tmp_path / "w", guard_host=tmp_path / "g", guard_sandbox="/run/g",
                            report_host=report, report_sandbox="/run/r", python="python", test_files=[],
                            changed={})
    assert violations(guarded) == ()
    guarded.marker_host.write_text(json.dumps({"rule": "frame-walk", "event": "sys._getframe"}) + "\nxx\n")
    assert violations(guarded) == ("frame-walk (sys._getframe)", "marker-garbled")
