from __future__ import annotations

from bench.attempt.failing_tests import FailingTestRef, extract, group_by_file, parse_test_id

SOURCE = '''\
import pytest


def helper():
    return 1


@pytest.mark.parametrize(
    "value",
    [1, 2],
)
def test_param(value):
    assert value


def test_plain():
    assert helper() == 1


@pytest.mark.usefixtures("tmp_path")
class TestGroup(Base):
    """Docstring stays out."""

    attr = 1

    def test_one(self):
        assert self.attr

    @pytest.mark.slow
    def test_two(self):
        assert True

    class TestInner:
        def test_deep(self):
            pass


def test_plain():
    assert "redefined"
'''


def refs(*ids: str) -> list[FailingTestRef]:
    return group_by_file(ids)["tests/test_a.py"]


def test_parse_test_id_strips_parameters_even_with_colons():
    assert parse_test_id("tests/test_a.py::TestGroup::test_one[a::b-[c]]") == FailingTestRef(
        "tests/test_a.py", ("TestGroup", "test_one")
    )
    assert parse_test_id("tests/test_a.py") is None


def test_parametrized_ids_extract_function_once_with_its_decorator():
    text = extract(SOURCE, refs("tests/test_a.py::test_param[1]", "tests/test_a.py::test_param[2]"))
    assert (
        text
        == '@pytest.mark.parametrize(\n    "value",\n    [1, 2],\n)\ndef test_param(value):\n    assert value\n'
    )


def test_methods_come_with_one_class_header_in_file_order():
    text = extract(
        SOURCE, refs("tests/test_a.py::TestGroup::test_two", "tests/test_a.py::TestGroup::test_one")
    )
    assert text == (
        '@pytest.mark.usefixtures("tmp_path")\nclass TestGroup(Base):\n'
        "    def test_one(self):\n        assert self.attr\n"
        "\n    @pytest.mark.slow\n    def test_two(self):\n        assert True\n"
    )


def test_nested_class_headers():
    text = extract(SOURCE, refs("tests/test_a.py::TestGroup::TestInner::test_deep"))
    assert text == (
        '@pytest.mark.usefixtures("tmp_path")\nclass TestGroup(Base):\n'
        "    class TestInner:\n        def test_deep(self):\n            pass\n"
    )


def test_redefined_function_shows_the_definition_python_keeps():
    assert (
        extract(SOURCE, refs("tests/test_a.py::test_plain")) == 'def test_plain():\n    assert "redefined"\n'
    )


def test_missing_test_is_named_not_invented():
    text = extract(SOURCE, refs("tests/test_a.py::TestGroup::test_inherited", "tests/test_a.py::test_plain"))
    assert text.endswith("\n# TestGroup::test_inherited: not defined in this file (inherited or generated)\n")
    assert text.startswith("def test_plain():")


def test_unparsable_test_file_says_so():
    assert extract("def broken(:\n", refs("tests/test_a.py::test_x")).startswith(
        "# (this file does not parse"
    )


GENERATED = '''\
import unittest


class Base(unittest.TestCase):
    def test_shared(self):
        assert self.value == 1


class TestChild(Base):
    value = 1


def _make_parser_test(lexer):
    class _TestParser(unittest.TestCase):
        def test_lexer(self):
            assert lexer


    _TestParser.__name__ = "Test" + lexer
    globals()[_TestParser.__name__] = _TestParser


_make_parser_test("Basic")
_make_parser_test("Contextual")
'''


def test_an_inherited_test_is_shown_from_its_base_class_with_a_note():
    assert extract(GENERATED, refs("tests/test_a.py::TestChild::test_shared")) == (
        "# TestChild::test_shared: inherited from Base\n"
        "class Base(unittest.TestCase):\n    def test_shared(self):\n        assert self.value == 1\n"
    )


def test_a_generated_test_is_shown_once_from_the_class_its_factory_builds():
    text = extract(GENERATED, refs("tests/test_a.py::TestBasic::test_lexer", "tests/test_a.py::TestContextual::test_lexer"))
    assert text == (
        "# TestBasic::test_lexer: generated from class _TestParser, built in a function of this file\n"
        "# TestContextual::test_lexer: generated from class _TestParser, built in a function of this file\n"
        "    class _TestParser(unittest.TestCase):\n        def test_lexer(self):\n            assert lexer\n"
    )


def test_a_name_several_generated_classes_define_is_not_guessed():
    source = GENERATED + "\n\ndef _make_other():\n    class _Other:\n        def test_lexer(self):\n            pass\n"
    text = extract(source, refs("tests/test_a.py::TestBasic::test_lexer"))
    assert text == "# TestBasic::test_lexer: not defined in this file (inherited or generated)\n"
