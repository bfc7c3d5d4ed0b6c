from __future__ import annotations

import pytest

from bench.attempt.code_map import (
    GAP_PREFIX,
    CodeMap,
    Definition,
    gap_marker,
    map_code,
    merge_ranges,
    range_text,
    render_partial,
)

# Line numbers matter: every span asserted below is counted on this text (line 1 is the docstring).
SOURCE = '''\
"""Module docstring."""
import os

CONSTANT = 1


@decorator
@other(
    arg=1,
)
def decorated(a, b):
    return helper(a) + b


def multi_line(
    first,
    second,
):
    """Doc."""
    return first


@register
class Outer(Base):
    """Outer doc."""

    attribute = 2

    def method(self):
        def nested():
            return 1
        return nested()

    class Inner:
        value = 3

        @staticmethod
        def deep(x):
            return x

    async def fetch(self, url):
        return await get(url)

    other = 4


if __name__ == "__main__":
    decorated(1, 2)
'''


@pytest.fixture(scope="module")
def code() -> CodeMap:
    result = map_code("pkg/sample.py", SOURCE)
    assert result is not None
    return result


def by_name(code: CodeMap) -> dict[str, Definition]:
    return {d.qualname: d for d in code.definitions}


def test_definitions_are_listed_in_file_order_with_qualnames_and_kinds(code: CodeMap):
    assert code.path == "pkg/sample.py"
    assert code.line_count == 48
    assert [(d.qualname, d.kind) for d in code.definitions] == [
        ("decorated", "function"),
        ("multi_line", "function"),
        ("Outer", "class"),
        ("Outer.method", "method"),
        ("Outer.Inner", "class"),
        ("Outer.Inner.deep", "method"),
        ("Outer.fetch", "method"),
    ]
    assert [d.name for d in code.definitions][-2:] == ["deep", "fetch"]


def test_nested_function_goes_with_its_method_and_is_no_definition_of_its_own(code: CodeMap):
    assert "nested" not in {d.name for d in code.definitions}
    assert by_name(code)["Outer.method"].span == (29, 32)


def test_decorators_are_part_of_span_and_header(code: CodeMap):
    decorated = by_name(code)["decorated"]
    assert decorated.span == (7, 12)
    assert decorated.header == (7, 11)
    assert decorated.own == ((7, 12),)
    deep = by_name(code)["Outer.Inner.deep"]
    assert (deep.span, deep.header) == ((37, 39), (37, 38))
    outer = by_name(code)["Outer"]
    assert (outer.span, outer.header) == ((23, 44), (23, 24))


def test_multi_line_signature_header_runs_to_the_line_before_the_body(code: CodeMap):
    multi = by_name(code)["multi_line"]
    assert multi.span == (15, 20)
    assert multi.header == (15, 18)
    assert multi.own == ((15, 20),)


def test_single_line_signatures_have_a_one_line_header(code: CodeMap):
    found = by_name(code)
    assert found["Outer.method"].header == (29, 29)
    assert found["Outer.Inner"].header == (34, 34)
    assert (found["Outer.fetch"].span, found["Outer.fetch"].header) == ((41, 42), (41, 41))


def test_class_own_is_header_docstring_and_attributes_not_methods(code: CodeMap):
    found = by_name(code)
    # decorator + class line, docstring (touching, so merged), `attribute = 2`, `other = 4`
    assert found["Outer"].own == ((23, 25), (27, 27), (44, 44))
    assert found["Outer.Inner"].own == ((34, 35),)
    assert found["Outer.Inner"].span == (34, 39)


def test_body_names_are_the_definitions_own_identifiers(code: CodeMap):
    found = by_name(code)
    assert found["decorated"].body_names == frozenset({"decorator", "other", "helper", "a", "b"})
    # a class's names come from its own statements, decorators and bases, not from its methods
    assert found["Outer"].body_names == frozenset({"register", "Base", "attribute", "other"})
    assert found["Outer.fetch"].body_names == frozenset({"get", "url"})
    assert found["Outer.method"].body_names == frozenset({"nested"})


def test_module_code_is_the_top_level_statements_that_are_not_definitions(code: CodeMap):
    assert code.module_code == ((1, 1), (2, 2), (4, 4), (47, 48))


def test_named_matches_a_plain_name_or_a_qualname(code: CodeMap):
    assert [d.qualname for d in code.named("deep")] == ["Outer.Inner.deep"]
    assert [d.qualname for d in code.named("Outer.Inner")] == ["Outer.Inner"]
    assert [d.qualname for d in code.named("Inner")] == ["Outer.Inner"]
    assert code.named("nested") == ()
    assert code.named("missing") == ()


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (7, "decorated"),  # a decorator line
        (12, "decorated"),
        (31, "Outer.method"),  # inside the nested function: the method that holds it
        (37, "Outer.Inner.deep"),  # the decorator of a method in a nested class
        (39, "Outer.Inner.deep"),
        (35, "Outer.Inner"),  # a class attribute: the innermost class
        (36, "Outer.Inner"),  # a blank line inside Inner
        (27, "Outer"),
        (43, "Outer"),  # a blank line between a method and an attribute
        (42, "Outer.fetch"),
    ],
)
def test_enclosing_picks_the_innermost_function_else_the_innermost_class(code: CodeMap, line: int,
                                                                         expected: str):
    found = code.enclosing(line)
    assert found is not None and found.qualname == expected


@pytest.mark.parametrize("line", [1, 5, 13, 21, 45, 48, 100])
def test_enclosing_outside_every_definition_is_none(code: CodeMap, line: int):
    assert code.enclosing(line) is None


@pytest.mark.parametrize("source", ["def broken(:\n    pass\n", "x = (\n", "class C\n"])
def test_a_file_that_does_not_parse_has_no_code_map(source: str):
    assert map_code("broken.py", source) is None


def test_a_file_with_a_null_byte_has_no_code_map():
    assert map_code("nul.py", "x = 1\0\n") is None


def test_an_empty_file_has_no_blocks():
    assert map_code("empty.py", "") == CodeMap("empty.py", 0, (), ())


def test_merge_ranges_sorts_and_joins_overlapping_and_touching_ranges():
    assert merge_ranges([(8, 9), (1, 2), (5, 6), (3, 3), (9, 12), (10, 11)]) == ((1, 3), (5, 6), (8, 12))
    assert merge_ranges([]) == ()
    assert merge_ranges(iter([(4, 4), (4, 4)])) == ((4, 4),)


SMALL = """\
import os


def a():
    return 1


def b():
    return 2


X = 3
"""


def test_gap_marker_text():
    assert gap_marker(4, 4) == "# ⋮ line 4 not shown\n"
    assert gap_marker(2, 7) == "# ⋮ lines 2-7 not shown\n"
    assert gap_marker(2, 7).startswith(GAP_PREFIX)


def test_render_partial_replaces_each_gap_with_one_marker():
    assert render_partial(SMALL, ((1, 1), (8, 9))) == (
        "import os\n"
        "# ⋮ lines 2-7 not shown\n"
        "def b():\n"
        "    return 2\n"
        "# ⋮ lines 10-12 not shown\n"
    )


def test_render_partial_keeps_blank_only_gaps_verbatim():
    assert render_partial(SMALL, ((4, 5), (1, 1))) == (
        "import os\n"
        "\n"
        "\n"
        "def a():\n"
        "    return 1\n"
        "# ⋮ lines 6-12 not shown\n"
    )
    # a gap at the end made of blank lines only is kept as blank lines too
    assert render_partial("x = 1\n\n\n", ((1, 1),)) == "x = 1\n\n\n"


def test_render_partial_merges_ranges_and_marks_a_single_hidden_line():
    assert render_partial(SMALL, ((1, 6), (5, 9), (10, 11))) == (
        "import os\n\n\ndef a():\n    return 1\n\n\ndef b():\n    return 2\n\n\n"
        "# ⋮ line 12 not shown\n"
    )


def test_render_partial_with_a_leading_gap_and_a_range_past_the_end():
    assert render_partial(SMALL, ((12, 99),)) == "# ⋮ lines 1-11 not shown\nX = 3\n"


def test_render_partial_of_every_line_is_the_file():
    assert render_partial(SMALL, ((1, 12),)) == SMALL


def test_render_partial_without_ranges_is_one_marker():
    assert render_partial(SMALL, ()) == "# ⋮ lines 1-12 not shown\n"


def test_render_partial_ends_the_last_line_when_the_file_does_not():
    assert render_partial("a = 1\nb = 2", ((2, 2),)) == "# ⋮ line 1 not shown\nb = 2\n"


def test_range_text_joins_the_lines_of_the_ranges_without_markers():
    assert range_text(SMALL, ((1, 1), (4, 5))) == "import os\ndef a():\n    return 1"
    assert range_text(SMALL, ((12, 12),)) == "X = 3"
    assert range_text(SMALL, ()) == ""
