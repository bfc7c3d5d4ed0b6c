"""A recursive-descent evaluator for arithmetic expressions."""

import re

_TOKEN = re.compile(r"(\d+(?:\.\d+)?)|(\*\*|//|[-+*/%()])")


class ParseError(ValueError):
    pass


def _tokenize(expr):
    tokens = []
    pos = 0
    while pos < len(expr):
        if expr[pos].isspace():
            pos += 1
            continue
        match = _TOKEN.match(expr, pos)
        if not match:
            raise ParseError(f"unexpected character {expr[pos]!r} at {pos}")
        number, operator = match.groups()
        if number is not None:
            tokens.append(("num", float(number) if "." in number else int(number)))
        else:
            tokens.append(("op", operator))
        pos = match.end()
    return tokens


class _Parser:
    def __init__(self, tokens):
        self.tokens = tokens
        self.pos = 0

    def take(self, *operators):
        if self.pos < len(self.tokens):
            kind, value = self.tokens[self.pos]
            if kind == "op" and value in operators:
                self.pos += 1
                return value
        return None

    def expr(self):
        value = self.term()
        while (op := self.take("+", "-")) is not None:
            right = self.term()
            value = value + right if op == "+" else value - right
        return value

    def term(self):
        value = self.power()
        while (op := self.take("*", "/", "//", "%")) is not None:
            right = self.power()
            if op == "*":
                value = value * right
            elif op == "/":
                value = value / right
            elif op == "//":
                value = value // right
            else:
                value = value % right
        return value

    def power(self):
        value = self.unary()
        while self.take("**") is not None:
            value = value ** self.unary()
        return value

    def unary(self):
        op = self.take("-", "+")
        if op is not None:
            value = self.unary()
            return -value if op == "-" else value
        return self.atom()

    def atom(self):
        if self.pos >= len(self.tokens):
            raise ParseError("unexpected end of expression")
        kind, value = self.tokens[self.pos]
        if kind == "num":
            self.pos += 1
            return value
        if self.take("(") is not None:
            inner = self.expr()
            if self.take(")") is None:
                raise ParseError("missing ')'")
            return inner
        raise ParseError(f"unexpected {value!r}")


def evaluate(expr):
    return _Parser(_tokenize(expr)).expr()
