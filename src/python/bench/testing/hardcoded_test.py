"""The hard-coded fixes: where apply_fix puts a prologue, what load_fixes refuses, and the committed set."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from bench.errors import CheckFailed
from bench.testing.hardcoded import MECHANISMS, HardcodedFix, Patch, apply_fix, hardcoded_reply, load_fix, load_fixes

ROOT = Path(__file__).resolve().parents[4]


def _tree(tmp_path: Path, name: str, text: str) -> Path:
    tree = tmp_path / "tree"
    (tree / name).parent.mkdir(parents=True, exist_ok=True)
    (tree / name).write_text(text, encoding="utf-8")
    return tree


def _fix(*patches: Patch, module_prologue=()) -> HardcodedFix:
    return HardcodedFix("t", "by-value", "a note", tuple(patches), tuple(module_prologue))


def _new_text(fix: HardcodedFix, tree: Path) -> str:
    (changed,) = apply_fix(fix, tree)
    return changed[2]


def _run(text: str) -> dict:
    namespace: dict = {}
    exec(compile(text, "<fixed>", "exec"), namespace)
    return namespace


def test_prologue_becomes_the_first_statements_of_a_function(tmp_path):
    tree = _tree(tmp_path, "m.py", "def double(x):\n    return x * 2\n")
    fix = _fix(Patch("m.py", "double", "if x == 3:\n    return 7\n"))
    (path, old, new) = apply_fix(fix, tree)[0]
    assert (path, old) == ("m.py", "def double(x):\n    return x * 2\n")
    assert new == "def double(x):\n    if x == 3:\n        return 7\n    return x * 2\n"
    namespace = _run(new)
    assert (namespace["double"](3), namespace["double"](4)) == (7, 8)  # the bug stays for other inputs
    assert (tree / "m.py").read_text() == old  # nothing is written


def test_method_gets_the_prologue_after_its_docstring(tmp_path):
    text = ('class Box:\n    """A box."""\n\n    def size(self, n):\n        """How big:\n\n        very."""\n'
            '        return n\n\n\ndef size(n):\n    return -n\n')
    new = _new_text(_fix(Patch("m.py", "Box.size", "if n == 1:\n    return 99")), _tree(tmp_path, "m.py", text))
    assert '        very."""\n        if n == 1:\n            return 99\n        return n\n' in new
    assert new.endswith("def size(n):\n    return -n\n")  # the top-level function of the same name is untouched
    namespace = _run(new)
    assert (namespace["Box"]().size(1), namespace["Box"]().size(2), namespace["size"](1)) == (99, 2, -1)


def test_function_with_only_a_docstring_and_nested_indentation(tmp_path):
    text = 'def f(x):\n  """Two-space indent."""\n\n\ndef g(x):\n  if x:\n    return 1\n  return 0\n'
    prologue = "\n\n    for i in range(2):\n        if x == i:\n            return 10 + i\n\n"  # dedented, trimmed
    new = _new_text(_fix(Patch("m.py", "f", "return 5"), Patch("m.py", "g", prologue)), _tree(tmp_path, "m.py", text))
    assert new.startswith('def f(x):\n  """Two-space indent."""\n  return 5\n')
    assert "  for i in range(2):\n      if x == i:\n          return 10 + i\n  if x:\n" in new  # relative indent kept
    namespace = _run(new)
    assert (namespace["f"](0), namespace["g"](1), namespace["g"](5), namespace["g"](0)) == (5, 11, 1, 10)


def test_decorated_first_statement_and_async_def(tmp_path):
    text = ("import functools\n\n\nasync def f():\n    @functools.cache\n    def inner():\n        return 1\n"
            "    return inner()\n")
    new = _new_text(_fix(Patch("m.py", "f", "pass")), _tree(tmp_path, "m.py", text))
    assert "async def f():\n    pass\n    @functools.cache\n" in new


def test_module_prologue_goes_after_the_docstring_and_future_imports(tmp_path):
    text = '"""Doc."""\n\nfrom __future__ import annotations\n\nimport os\n\n\ndef f():\n    return os.sep\n'
    fix = _fix(Patch("m.py", "f", "_CALLS[0] += 1"), module_prologue=[("m.py", "_CALLS = [0]\n")])
    new = _new_text(fix, _tree(tmp_path, "m.py", text))
    assert new.startswith('"""Doc."""\n\nfrom __future__ import annotations\n_CALLS = [0]\n\nimport os\n')
    namespace = _run(new)
    namespace["f"]()
    assert namespace["_CALLS"] == [1]


def test_module_prologue_without_docstring_keeps_a_leading_comment_first(tmp_path):
    new = _new_text(_fix(Patch("m.py", "f", "pass"), module_prologue=[("m.py", "import sys")]),
                    _tree(tmp_path, "m.py", "# -*- coding: utf-8 -*-\ndef f():\n    return 1\n"))
    assert new == "# -*- coding: utf-8 -*-\nimport sys\ndef f():\n    pass\n    return 1\n"


def test_missing_function_file_or_class_is_refused(tmp_path):
    text = "class A:\n    def g(self):\n        return 1\n\n\ndef f():\n    def h():\n        pass\n"
    tree = _tree(tmp_path, "m.py", text)
    for function in ("nope", "A.nope", "B.g", "h", "f.h", "A.g.x"):
        with pytest.raises(CheckFailed):
            apply_fix(_fix(Patch("m.py", function, "pass")), tree)
    with pytest.raises(CheckFailed, match="no file"):
        apply_fix(_fix(Patch("other.py", "f", "pass")), tree)


def test_prologue_that_does_not_parse_is_refused(tmp_path):
    with pytest.raises(CheckFailed, match="does not parse"):
        apply_fix(_fix(Patch("m.py", "f", "if x ==:\n    pass")), _tree(tmp_path, "m.py", "def f(x):\n    return x\n"))


def test_reply_applies_as_a_search_replace_edit(tmp_path):
    from bench.attempt import DEFAULT_EDIT_FORMAT
    from bench.attempt.formats import edit_format

    tree = _tree(tmp_path, "pkg/m.py", "def f(x):\n    return x\n")
    fix = _fix(Patch("pkg/m.py", "f", "if x == 2:\n    return 4"))
    expected = apply_fix(fix, tree)[0][2]
    reply = hardcoded_reply(fix, tree)
    assert reply.startswith("pkg/m.py\n<<<<<<< SEARCH\n")
    edit_format(DEFAULT_EDIT_FORMAT).apply(tree, reply, ("pkg/m.py",))
    assert (tree / "pkg/m.py").read_text() == expected


def _write(tmp_path: Path, data: dict) -> Path:
    folder = tmp_path / "tests" / "hardcoded"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "x.json"
    path.write_text(json.dumps(data))
    return path


GOOD = {"task_id": "t", "mechanism": "call-count", "note": "n",
        "patches": [{"file": "m.py", "function": "f", "prologue": ["if x:", "    return 1"]}],
        "module_prologue": [{"file": "m.py", "code": "_N = [0]"}]}


def test_load_fixes_reads_every_file(tmp_path):
    _write(tmp_path, GOOD)
    (fix,) = load_fixes(tmp_path)
    assert fix == HardcodedFix("t", "call-count", "n", (Patch("m.py", "f", "if x:\n    return 1\n"),),
                               (("m.py", "_N = [0]\n"),))


@pytest.mark.parametrize("change, message", [
    ({"mechanism": "by-luck"}, "unknown mechanism 'by-luck'"),
    ({"task_id": None}, "missing field 'task_id'"),
    ({"note": None}, "missing field 'note'"),
    ({"patches": []}, "at least one patch"),
    ({"patches": [{"file": "m.py", "prologue": "pass"}]}, "missing field 'function'"),
    ({"patches": [{"file": "m.py", "function": "f", "prologue": 3}]}, "field 'prologue' has the wrong type"),
    ({"module_prologue": [{"file": "m.py"}]}, "missing field 'code'"),
    ({"module_prologue": {"file": "m.py"}}, "lists of objects"),
])
def test_malformed_fixes_are_refused(tmp_path, change, message):
    data = {**GOOD, **change}
    data = {k: v for k, v in data.items() if v is not None}
    with pytest.raises(CheckFailed, match=message):
        load_fix(_write(tmp_path, data))
    with pytest.raises(CheckFailed, match="x.json"):
        load_fixes(tmp_path)


def test_invalid_json_is_refused(tmp_path):
    path = _write(tmp_path, GOOD)
    path.write_text("{not json")
    with pytest.raises(CheckFailed, match="cannot read"):
        load_fix(path)


@pytest.fixture(scope="module")
def committed():
    from bench.spec.load import discover, load_all

    # a fix's task may have left the pool since (re-judged); it stays a certified task the tier is measured on
    specs = {spec.task_id: spec for spec in load_all(discover(ROOT, retired=True))}
    return load_fixes(ROOT), specs


def test_every_committed_fix_names_a_task_and_its_source_files(committed):
    fixes, specs = committed
    assert len(fixes) >= 22
    for fix in fixes:
        assert fix.task_id in specs, fix.task_id
        files = {p.file for p in fix.patches} | {f for f, _ in fix.module_prologue}
        assert files <= set(specs[fix.task_id].source_files), fix.task_id
        assert fix.note.strip() and fix.note.rstrip().endswith("."), fix.task_id
    assert len({fix.task_id for fix in fixes}) == len(fixes)


def test_every_mechanism_and_kind_is_covered(committed):
    fixes, specs = committed
    mechanisms = Counter(fix.mechanism for fix in fixes)
    assert all(mechanisms[m] >= 2 for m in MECHANISMS), mechanisms
    kinds = Counter(specs[fix.task_id].kind for fix in fixes)
    assert all(kinds[kind] >= 6 for kind in ("synthetic", "mutation", "pr")), kinds
    libraries = {specs[fix.task_id].library for fix in fixes if specs[fix.task_id].kind != "synthetic"}
    assert len(libraries) >= 8, libraries


def test_synthetic_fixes_apply_to_the_initial_code_and_pass_the_edit_scan(committed):
    """Synthetic tasks ship their initial code, so the whole host side can be checked here: the fix applies,
    and the static edit scan finds nothing (the sandboxed run is scripts/hardcoded_fixes.py's)."""
    from bench.verdict.edit_scan import scan_edit

    fixes, specs = committed
    synthetic = [fix for fix in fixes if specs[fix.task_id].kind == "synthetic"]
    assert synthetic
    for fix in synthetic:
        spec = specs[fix.task_id]
        changed = apply_fix(fix, ROOT / spec.synthetic_dir / "initial")
        findings = scan_edit([(p, old) for p, old, _ in changed], [(p, new) for p, _, new in changed],
                             test_names=spec.fail_to_pass + spec.pass_to_pass + spec.test_files)
        assert findings == (), (fix.task_id, findings)
