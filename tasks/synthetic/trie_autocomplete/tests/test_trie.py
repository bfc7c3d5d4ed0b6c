import pytest

import trie


def build(*words):
    t = trie.Trie()
    for w in words:
        t.insert(w)
    return t


def test_insert_reports_new_words():
    t = trie.Trie()
    assert t.insert("cat") is True
    assert t.insert("cat") is False
    assert len(t) == 1


def test_empty_word_rejected():
    with pytest.raises(ValueError):
        trie.Trie().insert("")


def test_prefix_is_not_a_word():
    t = build("card")
    assert t.contains("card") is True
    assert t.contains("car") is False


def test_starts_with_sorted():
    t = build("tea", "ten", "to", "inn", "tent")
    assert t.starts_with("te") == ["tea", "ten", "tent"]
    assert t.starts_with("x") == []
    assert t.starts_with("") == ["inn", "tea", "ten", "tent", "to"]


def test_remove_word_that_prefixes_another():
    t = build("car", "card")
    assert t.remove("car") is True
    assert t.contains("card") is True
    assert t.starts_with("car") == ["card"]


def test_remove_keeps_siblings():
    t = build("card", "care")
    assert t.remove("card") is True
    assert t.starts_with("car") == ["care"]
    assert len(t) == 1


def test_remove_missing_word():
    t = build("card")
    assert t.remove("car") is False
    assert t.remove("cards") is False
    assert len(t) == 1


def test_longest_common_prefix():
    assert build("flower", "flow", "flight").longest_common_prefix() == "fl"
    assert build("inter", "internal").longest_common_prefix() == "inter"
    assert trie.Trie().longest_common_prefix() == ""
