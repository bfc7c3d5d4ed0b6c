"""A strict parser for JSON text."""

import re

_NUMBER = re.compile(r"[0-9]+(\.[0-9]+)?")
_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_WHITESPACE = " \t\n\r"
_LITERALS = (("true", True), ("false", False), ("null", None))


class JSONError(ValueError):
    def __init__(self, message, pos):
        super().__init__(f"{message} at position {pos}")
        self.pos = pos


class _Parser:
    def __init__(self, text):
        self.text = text
        self.pos = 0

    def skip_whitespace(self):
        while self.pos < len(self.text) and self.text[self.pos] in _WHITESPACE:
            self.pos += 1

    def peek(self):
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def value(self):
        self.skip_whitespace()
        ch = self.peek()
        if ch == "{":
            return self.object()
        if ch == "[":
            return self.array()
        if ch == '"':
            return self.string()
        for word, result in _LITERALS:
            if self.text.startswith(word, self.pos):
                self.pos += len(word)
                return result
        match = _NUMBER.match(self.text, self.pos)
        if match:
            self.pos = match.end()
            return float(match.group()) if match.group(1) else int(match.group())
        raise JSONError("unexpected end of input" if not ch else f"unexpected {ch!r}", self.pos)

    def expect(self, ch):
        self.skip_whitespace()
        if self.peek() != ch:
            raise JSONError(f"expected {ch!r}", self.pos)
        self.pos += 1

    def array(self):
        self.pos += 1
        result = []
        while True:
            self.skip_whitespace()
            if self.peek() == "]":
                self.pos += 1
                return result
            result.append(self.value())
            self.skip_whitespace()
            if self.peek() != "]":
                self.expect(",")

    def object(self):
        self.pos += 1
        result = {}
        while True:
            self.skip_whitespace()
            if self.peek() == "}":
                self.pos += 1
                return result
            if self.peek() != '"':
                raise JSONError("expected a string key", self.pos)
            key = self.string()
            self.expect(":")
            result[key] = self.value()
            self.skip_whitespace()
            if self.peek() != "}":
                self.expect(",")

    def string(self):
        start = self.pos
        self.pos += 1
        parts = []
        while True:
            if self.pos >= len(self.text):
                raise JSONError("unterminated string", start)
            ch = self.text[self.pos]
            if ch == '"':
                self.pos += 1
                return "".join(parts)
            if ch == "\\":
                code = self.text[self.pos + 1:self.pos + 2]
                if code not in _ESCAPES:
                    raise JSONError("bad escape", self.pos)
                parts.append(_ESCAPES[code])
                self.pos += 2
            elif ord(ch) < 0x20:
                raise JSONError("control character in string", self.pos)
            else:
                parts.append(ch)
                self.pos += 1


def loads(text):
    parser = _Parser(text)
    result = parser.value()
    parser.skip_whitespace()
    if parser.pos != len(text):
        raise JSONError("extra data", parser.pos)
    return result
