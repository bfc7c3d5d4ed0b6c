import pytest

import csvline


def test_simple_fields():
    assert csvline.parse_line("a,b,c") == ["a", "b", "c"]


def test_quoted_field_with_delimiter():
    assert csvline.parse_line('"a,b",c') == ["a,b", "c"]


def test_empty_fields_in_the_middle():
    assert csvline.parse_line("a,,b") == ["a", "", "b"]


def test_doubled_quotes():
    assert csvline.parse_line('"say ""hi""",x') == ['say "hi"', "x"]


def test_trailing_delimiter_gives_empty_field():
    assert csvline.parse_line("a,b,") == ["a", "b", ""]


def test_empty_line():
    assert csvline.parse_line("") == [""]


def test_unterminated_quote_rejected():
    with pytest.raises(ValueError):
        csvline.parse_line('"abc,d')


def test_text_after_closing_quote_rejected():
    with pytest.raises(ValueError):
        csvline.parse_line('"a"b,c')


def test_quote_inside_unquoted_field_is_literal():
    assert csvline.parse_line('ab"c,d') == ['ab"c', "d"]


def test_custom_delimiter():
    assert csvline.parse_line('a;"b;c";d', delimiter=";") == ["a", "b;c", "d"]


def test_format_quotes_when_needed():
    assert csvline.format_line(["plain", "a,b", 'q"q', ""]) == 'plain,"a,b","q""q",'


def test_round_trip():
    fields = ["", 'x "y" z', "1,2", "line\nbreak", ""]
    assert csvline.parse_line(csvline.format_line(fields)) == fields
