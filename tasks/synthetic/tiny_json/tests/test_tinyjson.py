import pytest

import tinyjson


def test_literals_and_whitespace():
    assert tinyjson.loads(" \n true\t") is True
    assert tinyjson.loads("null") is None
    assert tinyjson.loads("[false]") == [False]


def test_nested_structures():
    text = '{"a": [1, {"b": []}, {}], "c": {"d": "e"}, "a2": 0}'
    assert tinyjson.loads(text) == {"a": [1, {"b": []}, {}], "c": {"d": "e"}, "a2": 0}


def test_repeated_key_keeps_last():
    assert tinyjson.loads('{"k": 1, "k": 2}') == {"k": 2}


def test_simple_escapes():
    assert tinyjson.loads(r'"a\"b\\c\/d\n\t"') == 'a"b\\c/d\n\t'


def test_unicode_escapes():
    assert tinyjson.loads(r'"caf\u00e9 \u00E9"') == "café é"
    assert tinyjson.loads(r'"\ud83d\ude00"') == "😀"


def test_numbers():
    assert tinyjson.loads("[0, -0, 12, -7, 1.5, -2.25]") == [0, 0, 12, -7, 1.5, -2.25]
    assert tinyjson.loads("[1e3, 1.5e-3, 2E+2]") == [1000.0, 0.0015, 200.0]
    assert isinstance(tinyjson.loads("-7"), int) and isinstance(tinyjson.loads("1e3"), float)


def test_invalid_numbers():
    for bad in ("01", "+1", ".5", "1.", "-", "1e", "0x10"):
        with pytest.raises(tinyjson.JSONError):
            tinyjson.loads(bad)


def test_trailing_commas_rejected_with_position():
    with pytest.raises(tinyjson.JSONError) as info:
        tinyjson.loads("[1, 2,]")
    assert info.value.pos == 6
    with pytest.raises(tinyjson.JSONError):
        tinyjson.loads('{"a": 1,}')


def test_missing_comma_position():
    with pytest.raises(tinyjson.JSONError) as info:
        tinyjson.loads("[1 2]")
    assert info.value.pos == 3


def test_structural_errors():
    for bad in ("", "[", '{"a" 1}', "{1: 2}", '"abc', "[1]]", "tru", '"a\x01"', r'"\x"', r'"\u12G4"'):
        with pytest.raises(tinyjson.JSONError):
            tinyjson.loads(bad)
    assert issubclass(tinyjson.JSONError, ValueError)
