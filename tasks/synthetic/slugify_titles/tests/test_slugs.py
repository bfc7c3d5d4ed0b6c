import pytest

import slugs


def test_basic_title():
    assert slugs.slugify("Hello, World!") == "hello-world"


def test_runs_of_separators_collapse():
    assert slugs.slugify("a  --  b__c") == "a-b-c"


def test_edges_are_trimmed():
    assert slugs.slugify("  ...Top 10 Tips...  ") == "top-10-tips"


def test_accents_are_removed():
    assert slugs.slugify("Crème Brûlée à la carte") == "creme-brulee-a-la-carte"


def test_truncation_drops_trailing_hyphen():
    assert slugs.slugify("hello world again", max_length=6) == "hello"


def test_truncation_inside_word():
    assert slugs.slugify("hello world", max_length=8) == "hello-wo"


def test_no_letters_gives_empty_slug():
    assert slugs.slugify("!!! ???") == ""


def test_bad_max_length():
    with pytest.raises(ValueError):
        slugs.slugify("x", max_length=0)
