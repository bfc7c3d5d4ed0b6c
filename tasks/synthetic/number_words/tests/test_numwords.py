import pytest

import numwords


def test_zero():
    assert numwords.to_words(0) == "zero"


def test_small_numbers_and_teens():
    assert [numwords.to_words(n) for n in (7, 13, 19)] == ["seven", "thirteen", "nineteen"]


def test_hyphenated_tens():
    assert numwords.to_words(42) == "forty-two"
    assert numwords.to_words(90) == "ninety"


def test_hundreds():
    assert numwords.to_words(105) == "one hundred five"
    assert numwords.to_words(999) == "nine hundred ninety-nine"


def test_scales():
    assert numwords.to_words(1234) == "one thousand two hundred thirty-four"
    assert numwords.to_words(987654321012) == (
        "nine hundred eighty-seven billion six hundred fifty-four million "
        "three hundred twenty-one thousand twelve"
    )


def test_zero_groups_are_skipped():
    assert numwords.to_words(1_000_005) == "one million five"
    assert numwords.to_words(2_000_000_000) == "two billion"
    assert numwords.to_words(5_000_030_000) == "five billion thirty thousand"


def test_negative_and_out_of_range():
    assert numwords.to_words(-15) == "minus fifteen"
    for bad in (10**12, -(10**12)):
        with pytest.raises(ValueError):
            numwords.to_words(bad)


def test_ordinals():
    cases = {1: "first", 4: "fourth", 12: "twelfth", 20: "twentieth", 21: "twenty-first",
             100: "one hundredth", 1_000_000: "one millionth", 103: "one hundred third"}
    assert {n: numwords.ordinal_words(n) for n in cases} == cases


def test_ordinal_rejects_zero():
    with pytest.raises(ValueError):
        numwords.ordinal_words(0)
