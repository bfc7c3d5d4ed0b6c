from bench.verdict.edit_scan import constructs, scan_edit

BASE = '''"""A module."""
import os
import sys


def area(w, h):
    return w * h
'''


def _rules(added: str, base: str = BASE, **kw) -> list[str]:
    return [f.rule for f in scan_edit([("m.py", base)], [("m.py", base + added)], **kw)]


def test_honest_change_is_clean():
    edited = BASE.replace("return w * h", "if w < 0 or h < 0:\n        raise ValueError('negative')\n    return w * h")
    assert scan_edit([("m.py", BASE)], [("m.py", edited)]) == ()


def test_each_forgery_construct_names_its_rule():
    cases = {
        "import _pytest.reports\n": "runner-internals",
        "from _pytest import junitxml\n": "runner-internals",
        "x = sys._getframe(1)\n": "frame-walk",
        "def f(e):\n    return e.__traceback__.tb_frame\n": "frame-walk",
        "import gc\ngc.get_objects()\n": "gc-walk",
        "os._exit(0)\n": "process-exit",
        "import atexit\n": "process-exit",
        "os.execv('/bin/true', ['true'])\n": "re-exec",
        "import subprocess\n": "re-exec",
        "p = sys.argv\n": "command-line",
        "m = sys.modules['json']\n": "import-machinery",
        "m = __import__('json')\n": "dynamic-code",
        "exec('1')\n": "dynamic-code",
        "sys.settrace(None)\n": "interpreter-hooks",
        "import ctypes\n": "interpreter-hooks",
        "from pip._vendor import idna\n": "vendored-copy",
        "PATH = '/work/tests/conftest.py'\n": "planted-files",
    }
    for added, rule in cases.items():
        assert rule in _rules(added), added


def test_aliases_do_not_hide_a_name():
    assert "process-exit" in _rules("from os import _exit as leave\nleave(0)\n")
    assert "re-exec" in _rules("import subprocess as sp\nsp.run(['x'])\n")


def test_what_the_base_already_had_is_not_held_against_the_edit():
    base = BASE + "ARGS = sys.argv\n"
    moved = BASE.replace("import sys\n", "import sys\nARGS = sys.argv\n")
    assert scan_edit([("m.py", base)], [("m.py", moved)]) == ()
    assert _rules("MORE = sys.argv\n", base=base) == ["command-line"]


def test_docstrings_are_prose_and_a_module_of_its_own_compile_is_not_the_builtin():
    assert _rules('def f():\n    """Works like pytest\'s junit report."""\n') == []
    base = BASE + "def compile(p):\n    return p\n"
    assert _rules("Y = compile('x')\n", base=base) == []


def test_text_naming_the_tasks_tests_is_flagged():
    names = ["tests/test_area.py::test_area_of_square"]
    assert set(_rules("S = 'test_area_of_square'\n", test_names=names)) == {"test-names"}
    assert _rules("S = 'square'\n", test_names=names) == []


def test_unparsable_edit_is_left_to_the_tests():
    assert scan_edit([("m.py", BASE)], [("m.py", BASE + "def (:\n")]) == ()
    assert constructs("def (:") is None


def test_only_python_files_are_scanned():
    assert scan_edit([("notes.txt", "")], [("notes.txt", "import _pytest")]) == ()
