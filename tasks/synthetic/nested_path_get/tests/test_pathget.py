import pytest

import pathget

DATA = {
    "users": [
        {"name": "ada", "address": {"city": "London"}, "score": 0},
        {"name": "bob", "address": None, "tags": []},
    ],
    "meta": {"count": 2, "0": "zero-key"},
    "grid": [[1, 2], [3, 4]],
    "title": "hello",
}


def test_keys_and_indexes():
    assert pathget.get_path(DATA, "users[0].address.city") == "London"
    assert pathget.get_path(DATA, "grid[1][0]") == 3


def test_empty_path_is_object():
    assert pathget.get_path(DATA, "") is DATA


def test_missing_gives_default():
    assert pathget.get_path(DATA, "users[5].name", "none") == "none"
    assert pathget.get_path(DATA, "meta.missing") is None
    assert pathget.get_path(DATA, "users[1].address.city", "?") == "?"


def test_falsy_values_are_returned():
    assert pathget.get_path(DATA, "users[0].score", 99) == 0
    assert pathget.get_path(DATA, "users[1].tags", "d") == []


def test_negative_indexes():
    assert pathget.get_path(DATA, "users[-1].name") == "bob"
    assert pathget.get_path([10, 20], "[-3]", "out") == "out"


def test_index_steps_only_index_lists():
    assert pathget.get_path(DATA, "title[0]", "no") == "no"
    assert pathget.get_path({0: "int key"}, "[0]", "no") == "no"
    assert pathget.get_path(DATA, "meta.0") == "zero-key"


def test_malformed_paths():
    for bad in ("a..b", ".a", "a.", "a[x]", "a[1", "a.[0]", "a[0]b", "]"):
        with pytest.raises(ValueError):
            pathget.get_path(DATA, bad)


def test_has_path_counts_stored_none():
    assert pathget.has_path(DATA, "users[1].address") is True
    assert pathget.has_path(DATA, "users[1].missing") is False
    assert pathget.has_path(DATA, "users[0].score") is True
