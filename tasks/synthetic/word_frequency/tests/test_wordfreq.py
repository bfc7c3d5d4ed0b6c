import wordfreq


def test_words_basic_split():
    assert wordfreq.words("one two, three!") == ["one", "two", "three"]


def test_words_are_lowercased():
    assert wordfreq.words("Hello HELLO hello") == ["hello", "hello", "hello"]


def test_inner_apostrophe_kept_edges_dropped():
    assert wordfreq.words("don't 'quoted' rock'n'roll") == ["don't", "quoted", "rock'n'roll"]


def test_digits_and_underscores_separate():
    assert wordfreq.words("abc1def_ghi") == ["abc", "def", "ghi"]


def test_top_words_counts_case_insensitively():
    assert wordfreq.top_words("The cat and the hat. THE end", 1) == [("the", 3)]


def test_top_words_ties_are_alphabetical():
    assert wordfreq.top_words("pear apple pear apple fig", 3) == [("apple", 2), ("pear", 2), ("fig", 1)]


def test_top_words_non_positive_n():
    assert wordfreq.top_words("a b c", 0) == []
    assert wordfreq.top_words("a b c", -2) == []


def test_top_words_n_larger_than_vocabulary():
    assert wordfreq.top_words("b a b", 10) == [("b", 2), ("a", 1)]


def test_non_ascii_letters_are_word_characters():
    assert wordfreq.top_words("café naïve café", 2) == [("café", 2), ("naïve", 1)]
