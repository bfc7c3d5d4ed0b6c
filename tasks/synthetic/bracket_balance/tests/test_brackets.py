import brackets


def test_balanced_nested():
    assert brackets.is_balanced("{[()()]}") is True


def test_mismatched_type():
    assert brackets.is_balanced("(]") is False
    assert brackets.first_error("(]") == 1


def test_unclosed_bracket_is_unbalanced():
    assert brackets.is_balanced("((") is False
    assert brackets.is_balanced("[x") is False


def test_empty_and_plain_text():
    assert brackets.is_balanced("") is True
    assert brackets.first_error("no brackets here") is None


def test_stray_closer_position():
    assert brackets.first_error("ab())") == 4


def test_unclosed_reports_outermost():
    assert brackets.first_error("(a[b") == 0
    assert brackets.first_error("()[{}(") == 2


def test_other_characters_ignored():
    assert brackets.first_error("f(x[1], {'k': y})") is None
