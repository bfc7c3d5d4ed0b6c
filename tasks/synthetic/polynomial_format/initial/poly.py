"""Polynomials with integer coefficients."""


class Poly:
    def __init__(self, coeffs=()):
        self.coeffs = tuple(coeffs)

    @property
    def degree(self):
        return len(self.coeffs) - 1

    def __call__(self, x):
        result = 0
        for c in reversed(self.coeffs):
            result = result * x + c
        return result

    @staticmethod
    def _lift(other):
        if isinstance(other, Poly):
            return other
        if isinstance(other, int):
            return Poly([other])
        return None

    def __add__(self, other):
        other = self._lift(other)
        if other is None:
            return NotImplemented
        size = max(len(self.coeffs), len(other.coeffs))
        a = self.coeffs + (0,) * (size - len(self.coeffs))
        b = other.coeffs + (0,) * (size - len(other.coeffs))
        return Poly(x + y for x, y in zip(a, b))

    __radd__ = __add__

    def __neg__(self):
        return Poly(-c for c in self.coeffs)

    def __sub__(self, other):
        other = self._lift(other)
        return NotImplemented if other is None else self + (-other)

    def __rsub__(self, other):
        other = self._lift(other)
        return NotImplemented if other is None else other + (-self)

    def __mul__(self, other):
        other = self._lift(other)
        if other is None:
            return NotImplemented
        if not self.coeffs or not other.coeffs:
            return Poly()
        out = [0] * (len(self.coeffs) + len(other.coeffs) - 1)
        for i, a in enumerate(self.coeffs):
            for j, b in enumerate(other.coeffs):
                out[i + j] += a * b
        return Poly(out)

    __rmul__ = __mul__

    def derivative(self):
        return Poly(i * c for i, c in enumerate(self.coeffs) if i > 0)

    def __eq__(self, other):
        other = self._lift(other)
        return NotImplemented if other is None else self.coeffs == other.coeffs

    __hash__ = None

    def __str__(self):
        terms = []
        for power in range(self.degree, -1, -1):
            c = self.coeffs[power]
            if c == 0:
                continue
            if power == 0:
                terms.append(str(c))
            else:
                coefficient = "" if c == 1 else str(c)
                terms.append(coefficient + ("x" if power == 1 else f"x^{power}"))
        return " + ".join(terms) or "0"

    def __repr__(self):
        return f"Poly({list(self.coeffs)})"
