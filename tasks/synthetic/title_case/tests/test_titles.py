import titles


def test_plain_words():
    assert titles.title_case("hello big world") == "Hello Big World"


def test_minor_words_in_the_middle():
    assert titles.title_case("the lord of the rings") == "The Lord of the Rings"


def test_last_word_is_always_capitalised():
    assert titles.title_case("what is it made of") == "What Is It Made Of"


def test_mixed_case_input_is_normalised():
    assert titles.title_case("hARRY pOTTER AND tHE goblet") == "Harry Potter and the Goblet"


def test_hyphenated_parts_capitalised():
    assert titles.title_case("a state-of-the-art design") == "A State-Of-The-Art Design"


def test_whitespace_collapsed():
    assert titles.title_case("  war   and\tpeace ") == "War and Peace"


def test_custom_minor_words():
    assert titles.title_case("cats versus dogs", minor=("versus",)) == "Cats versus Dogs"
