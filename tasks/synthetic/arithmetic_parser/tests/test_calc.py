import pytest

import calc


def test_precedence_and_parentheses():
    assert calc.evaluate("2 + 3 * 4") == 14
    assert calc.evaluate("(2 + 3) * 4") == 20
    assert calc.evaluate("10 - 4 - 3") == 3


def test_unary_signs():
    assert calc.evaluate("-3 + 5") == 2
    assert calc.evaluate("2 * -3") == -6
    assert calc.evaluate("--4") == 4
    assert calc.evaluate("+(1)") == 1


def test_power_is_right_associative():
    assert calc.evaluate("2 ** 3 ** 2") == 512


def test_power_binds_tighter_than_unary_minus():
    assert calc.evaluate("-2 ** 2") == -4
    assert calc.evaluate("(-2) ** 2") == 4
    assert calc.evaluate("2 * -3 ** 2") == -18


def test_signed_exponent():
    assert calc.evaluate("2 ** -1") == 0.5
    assert calc.evaluate("2**-2**2") == 0.0625


def test_division_operators():
    assert calc.evaluate("7 / 2") == 3.5
    assert calc.evaluate("7 // 2") == 3
    assert calc.evaluate("-7 // 2") == -4
    assert calc.evaluate("-7 % 3") == 2


def test_number_types():
    assert calc.evaluate("1.5 * 4") == 6.0
    assert isinstance(calc.evaluate("1.5 * 4"), float)
    assert isinstance(calc.evaluate("6 * 4"), int)


def test_leftover_input_rejected():
    for bad in ("1 2", "(1))", "3 (4)"):
        with pytest.raises(calc.ParseError):
            calc.evaluate(bad)


def test_syntax_errors():
    for bad in ("", "   ", "1 +", "(1", "2 * * 3", "1 $ 2", ".5", "5.", "()"):
        with pytest.raises(calc.ParseError):
            calc.evaluate(bad)


def test_division_by_zero_and_error_type():
    with pytest.raises(ZeroDivisionError):
        calc.evaluate("1 / (2 - 2)")
    assert issubclass(calc.ParseError, ValueError)
