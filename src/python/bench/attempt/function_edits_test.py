from __future__ import annotations

import pytest

from bench.attempt.edits import Edit, apply_edits
from bench.attempt.function_edits import parse_function_edits
from bench.errors import EditError

MODULE = '''\
import functools


def area(width, height):
    return width + height


@functools.cache
@staticmethod
def cached(x):
    return x


class Shape:
    """A shape."""

    def scale(self, factor):
        return factor

    async def fetch(self):
        return None


def outer():
    def helper(value):
        return value - 1

    return helper


class Other:
    def clash(self):
        return 1


class Third:
    def clash(self):
        return 2
'''


def _parse(reply: str, files: dict[str, str] | None = None):
    files = {"pkg/mod.py": MODULE} if files is None else files
    return parse_function_edits(reply, files.get)


def _reply(code: str, path: str = "pkg/mod.py") -> str:
    return f"Here is the fix.\n\n{path}\n```python\n{code}```\nDone.\n"


def test_a_module_function_is_replaced_whole():
    (edit,) = _parse(_reply("def area(width, height):\n    return width * height\n"))
    assert edit == Edit("pkg/mod.py", "def area(width, height):\n    return width + height\n",
                        "def area(width, height):\n    return width * height\n")


def test_decorators_go_with_the_old_and_the_new_definition():
    (edit,) = _parse(_reply("@functools.cache\ndef cached(x):\n    return x + 1\n"))
    assert edit.search == "@functools.cache\n@staticmethod\ndef cached(x):\n    return x\n"
    assert edit.replace == "@functools.cache\ndef cached(x):\n    return x + 1\n"


def test_a_method_written_at_column_zero_keeps_its_place_in_the_class():
    (edit,) = _parse(_reply("def scale(self, factor):\n    return self and factor * 2\n"))
    assert edit.search == "    def scale(self, factor):\n        return factor\n"
    assert edit.replace == "    def scale(self, factor):\n        return self and factor * 2\n"


def test_an_async_method_and_a_nested_function_are_found_by_name():
    fetch, helper = _parse(_reply("async def fetch(self):\n    return 1\n\n\ndef helper(value):\n"
                                  "    return value + 1\n"))
    assert fetch.search == "    async def fetch(self):\n        return None\n"
    assert fetch.replace == "    async def fetch(self):\n        return 1\n"
    assert helper.search == "    def helper(value):\n        return value - 1\n"
    assert helper.replace == "    def helper(value):\n        return value + 1\n"


def test_a_class_is_replaced_whole_and_blank_lines_stay_unindented():
    (edit,) = _parse(_reply("class Other:\n    def clash(self):\n\n        return 3\n"))
    assert edit.search == "class Other:\n    def clash(self):\n        return 1\n"
    assert edit.replace == "class Other:\n    def clash(self):\n\n        return 3\n"


def test_the_path_may_stand_on_the_fence_line():
    (edit,) = _parse("```python pkg/mod.py\ndef area(width, height):\n    return 0\n```\n")
    assert edit.replace == "def area(width, height):\n    return 0\n"


def test_a_name_in_two_classes_is_ambiguous():
    with pytest.raises(EditError, match="2 functions named clash") as caught:
        _parse(_reply("def clash(self):\n    return 0\n"))
    assert caught.value.reason == "definition_ambiguous"


@pytest.mark.parametrize("reply, reason", [
    (_reply("def perimeter(w, h):\n    return 2 * (w + h)\n"), "definition_not_found"),
    (_reply("def area(width, height:\n    return 0\n"), "unparsable"),
    (_reply("area = lambda w, h: w * h\n"), "no_edits"),
    ("def area(width, height):\n    return width * height\n", "no_edits"),
    (_reply("def area(width, height):\n    return 0\n", path="pkg/missing.py"), "definition_not_found"),
])
def test_replies_that_name_nothing_to_replace_are_invalid_with_their_reason(reply, reason):
    with pytest.raises(EditError) as caught:
        _parse(reply)
    assert caught.value.reason == reason


def test_limits_are_those_of_search_replace():
    with pytest.raises(EditError) as caught:
        parse_function_edits(_reply("def area(width, height):\n    return 0\n"), {"pkg/mod.py": MODULE}.get,
                             max_reply_bytes=10)
    assert caught.value.reason == "reply_too_large"
    many = "".join(f"def area(width, height):\n    return {n}\n\n\n" for n in range(3))
    with pytest.raises(EditError) as caught:
        parse_function_edits(_reply(many), {"pkg/mod.py": MODULE}.get, max_blocks=2)
    assert caught.value.reason == "too_many_blocks"


def test_applied_through_search_replace_the_file_changes_only_there(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "mod.py").write_text(MODULE)
    edits = _parse(_reply("def scale(self, factor):\n    return factor * 2\n"))
    apply_edits(tmp_path, edits, ("pkg/mod.py",))
    assert (tmp_path / "pkg" / "mod.py").read_text() == MODULE.replace(
        "    def scale(self, factor):\n        return factor\n",
        "    def scale(self, factor):\n        return factor * 2\n")
    with pytest.raises(EditError) as caught:
        apply_edits(tmp_path, edits, ("other.py",))
    assert caught.value.reason == "path_not_allowed"
