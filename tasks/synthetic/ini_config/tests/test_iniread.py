import pytest

import iniread


def test_sections_and_entries():
    text = "[server]\nhost = example.org\nPort=8080\n\n[client]\nretries = 3\n"
    assert iniread.parse_ini(text) == {
        "server": {"host": "example.org", "port": "8080"},
        "client": {"retries": "3"},
    }


def test_comments_and_blank_lines_ignored():
    text = "; top comment\n  # indented comment\n[a]\n\n   \nk = v\n"
    assert iniread.parse_ini(text) == {"a": {"k": "v"}}


def test_value_may_contain_equals_sign():
    assert iniread.parse_ini("[db]\nurl = postgres://u@h/db?opt=1\n") == {"db": {"url": "postgres://u@h/db?opt=1"}}


def test_colon_separator():
    assert iniread.parse_ini("[x]\nname: Ada Lovelace\ntime = 12:30\n") == {
        "x": {"name": "Ada Lovelace", "time": "12:30"}
    }


def test_entries_before_first_section():
    assert iniread.parse_ini("root = yes\n[s]\nk = v\n") == {"": {"root": "yes"}, "s": {"k": "v"}}


def test_repeated_key_and_section():
    text = "[s]\nk = 1\n[t]\nx = 0\n[s]\nk = 2\nj = 3\n"
    assert iniread.parse_ini(text) == {"s": {"k": "2", "j": "3"}, "t": {"x": "0"}}


def test_invalid_line_reports_line_number():
    with pytest.raises(ValueError, match="line 3"):
        iniread.parse_ini("[s]\nk = v\njust words\n")


def test_empty_key_rejected():
    with pytest.raises(ValueError, match="line 2"):
        iniread.parse_ini("[s]\n = v\n")


def test_get_bool():
    section = {"a": "Yes", "b": "off", "c": "maybe"}
    assert iniread.get_bool(section, "a") is True
    assert iniread.get_bool(section, "b") is False
    assert iniread.get_bool(section, "missing", default=True) is True
    with pytest.raises(ValueError):
        iniread.get_bool(section, "c")
