import caesar


def test_lowercase_shift():
    assert caesar.shift("abc", 1) == "bcd"


def test_wraps_around_the_alphabet():
    assert caesar.shift("xyz", 3) == "abc"


def test_uppercase_keeps_case():
    assert caesar.shift("Hello", 3) == "Khoor"


def test_negative_and_large_shifts():
    assert caesar.shift("abc", -1) == "zab"
    assert caesar.shift("abc", 29) == "def"


def test_non_letters_unchanged():
    assert caesar.shift("a-b c!9", 2) == "c-d e!9"


def test_non_ascii_letters_unchanged():
    assert caesar.shift("café ß", 1) == "dbgé ß"


def test_unshift_round_trip_mixed_case():
    text = "The Quick Brown Fox, 1923!"
    assert caesar.unshift(caesar.shift(text, 11), 11) == text


def test_rot13_is_its_own_inverse():
    assert caesar.rot13("Uryyb") == "Hello"
