from poly import Poly


def test_trailing_zeros_dropped():
    assert Poly([1, 2, 0, 0]).coeffs == (1, 2)
    assert Poly([0, 0]).degree == -1


def test_evaluate():
    assert Poly([1, -1, 3])(2) == 11
    assert Poly()(5) == 0


def test_addition_cancels_leading_terms():
    p = Poly([1, 2, 3]) + Poly([0, 0, -3])
    assert p.degree == 1
    assert p == Poly([1, 2])


def test_int_operands():
    assert 1 + Poly([0, 1]) == Poly([1, 1])
    assert Poly([3, 1]) - 3 == Poly([0, 1])
    assert 2 * Poly([1, 1]) == Poly([2, 2])


def test_multiplication():
    assert Poly([1, 1]) * Poly([-1, 1]) == Poly([-1, 0, 1])


def test_derivative():
    assert Poly([5, 3, 0, 2]).derivative() == Poly([3, 0, 6])
    assert Poly([7]).derivative() == 0


def test_str_positive_terms():
    assert str(Poly([1, 0, 3])) == "3x^2 + 1"
    assert str(Poly([0, 1])) == "x"


def test_str_negative_terms():
    assert str(Poly([1, -1, 3])) == "3x^2 - x + 1"
    assert str(Poly([0, 2, 0, -1])) == "-x^3 + 2x"
    assert str(Poly([-7])) == "-7"


def test_str_zero_polynomial():
    assert str(Poly([0, 0])) == "0"
    assert str(Poly([1, 1]) - Poly([1, 1])) == "0"
