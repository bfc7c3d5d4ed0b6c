import anagrams


def test_is_anagram_ignores_case_and_spaces():
    assert anagrams.is_anagram("Dormitory", "dirty room") is True


def test_is_anagram_counts_letters():
    assert anagrams.is_anagram("aab", "abb") is False


def test_groups_in_first_appearance_order():
    words = ["tea", "eat", "tan", "ate", "nat", "bat"]
    assert anagrams.group_anagrams(words) == [["tea", "eat", "ate"], ["tan", "nat"], ["bat"]]


def test_grouping_ignores_case():
    assert anagrams.group_anagrams(["Listen", "silent", "enlist"]) == [["Listen", "silent", "enlist"]]


def test_duplicates_are_kept():
    assert anagrams.group_anagrams(["ab", "ba", "ab"]) == [["ab", "ba", "ab"]]


def test_empty_input():
    assert anagrams.group_anagrams([]) == []


def test_single_word():
    assert anagrams.group_anagrams(["solo"]) == [["solo"]]
