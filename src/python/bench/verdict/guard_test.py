import hashlib
import json
import os

from bench.verdict.guard import changed_lines, prepare_guard, violations
from bench.verdict.readonly_tree import changed_data, data_digests


def test_changed_lines_are_the_inserted_and_replaced_lines_of_the_edited_text():
    before = [("a.py", "one\ntwo\nthree\n"), ("b.py", "same\n")]
    after = [("a.py", "one\nTWO\nthree\nfour\n"), ("b.py", "same\n")]
    assert changed_lines(before, after) == {"a.py": [2, 4]}


def test_changed_lines_of_a_pure_deletion_is_empty():
    assert changed_lines([("a.py", "x\ny\n")], [("a.py", "x\n")]) == {"a.py": []}


def test_guard_freezes_every_module_but_the_sources_and_sends_the_config_through_a_channel(tmp_path):
    run = tmp_path / "work"
    (run / "tests" / "data").mkdir(parents=True)
    (run / "tests" / "helpers").mkdir()
    (run / "pkg").mkdir()
    (run / "tests" / "test_a.py").write_text("def test_a():\n    pass\n")
    (run / "tests" / "conftest.py").write_text("")
    (run / "tests" / "data" / "expected.txt").write_text("42\n")
    (run / "tests" / "helpers" / "util.py").write_text("")
    (run / "pkg" / "__init__.py").write_text("")
    (run / "pkg" / "core.py").write_text("")
    (run / "setup.cfg").write_text("")
    (run / "README").write_text("")
    guarded = prepare_guard(run_dir=run, guard_host=tmp_path / "guard", guard_sandbox="/run/g",
                            python="/venv/bin/python", test_files=["tests/test_a.py"], source_files=["pkg/core.py"],
                            changed={"pkg/core.py": [3]})
    assert guarded.argv_prefix == ("/venv/bin/python", "/run/g/launcher.py")
    assert not any((tmp_path / "guard").glob("*.json"))  # no configuration file anywhere
    channels = {c.name: c for c in guarded.channels}
    config = json.loads(channels["guard"].send)
    assert config["protected"] == ["setup.cfg", "tests/conftest.py", "tests/test_a.py"]
    assert config["changed"] == {"pkg/core.py": [3]}
    assert channels["marker"].receive > 0 and channels["marker"].send == b""
    assert [(m.sandbox_path, m.writable) for m in guarded.mounts] == [("/run/g", False)]
    # Modules, runner files and empty bytecode caches frozen; data files and the source file are not.
    assert set(guarded.frozen) == {"tests/test_a.py", "tests/conftest.py", "tests/helpers/util.py",
                                   "tests/__pycache__", "tests/helpers/__pycache__", "setup.cfg", "pkg/__init__.py",
                                   "pkg/__pycache__", guarded.canary_file, "__pycache__"}
    assert dict(guarded.data_before) == {"tests/data/expected.txt": hashlib.sha256(b"42\n").hexdigest()}
    canary = (run / guarded.canary_file).read_text()
    assert [outcome for _, outcome in guarded.canaries] == ["failed"]
    for test_id, _ in guarded.canaries:
        assert f"def {test_id.split('::')[1]}()" in canary


def test_test_data_whose_content_changed_is_reported_but_a_touch_or_a_rewrite_of_the_same_bytes_is_not(tmp_path):
    (tmp_path / "tests").mkdir()
    for name in ("same.toml", "touched.html", "changed.txt", "removed.txt"):
        (tmp_path / "tests" / name).write_text(name)
    before = data_digests(tmp_path, ["tests/test_x.py"])
    (tmp_path / "tests" / "same.toml").write_text("same.toml")
    os.utime(tmp_path / "tests" / "touched.html", (1, 1))
    (tmp_path / "tests" / "changed.txt").write_text("other")
    (tmp_path / "tests" / "removed.txt").unlink()
    assert changed_data(tmp_path, before) == ("tests/changed.txt", "tests/removed.txt")


def test_violations_are_read_from_the_marker_and_garbage_is_itself_a_violation():
    assert violations(b"") == ()
    marker = json.dumps({"rule": "frame-walk", "event": "sys._getframe"}) + "\nxx\n"
    assert violations(marker.encode()) == ("frame-walk (sys._getframe)", "marker-garbled")


def test_the_canary_file_has_no_module_docstring_for_old_pytest_to_read_through_a_deprecated_attribute():
    # pytest 7 reads a module docstring as ``ast.Constant.s`` (deprecated on Python 3.12+); a project whose
    # pytest config turns warnings into errors (werkzeug) then failed to collect the canary: exit 2, every run.
    import ast

    from bench.verdict.guard import _canary_source

    tree = ast.parse(_canary_source("test_canary_x", "token123"))
    assert ast.get_docstring(tree) is None
    assert isinstance(tree.body[0], ast.FunctionDef) and tree.body[0].lineno == 4  # the report's line, as before
