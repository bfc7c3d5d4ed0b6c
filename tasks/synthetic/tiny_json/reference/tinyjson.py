"""A strict parser for JSON text."""

import re

_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?")
_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_HEX = set("0123456789abcdefABCDEF")
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
            is_float = match.group(1) or match.group(2)
            return float(match.group()) if is_float else int(match.group())
        raise JSONError("unexpected end of input" if not ch else f"unexpected {ch!r}", self.pos)

    def expect(self, ch):
        self.skip_whitespace()
        if self.peek() != ch:
            raise JSONError(f"expected {ch!r}", self.pos)
        self.pos += 1

    def array(self):
        self.pos += 1
        result = []
        self.skip_whitespace()
        if self.peek() == "]":
            self.pos += 1
            return result
        while True:
            result.append(self.value())
            self.skip_whitespace()
            if self.peek() == "]":
                self.pos += 1
                return result
            self.expect(",")

    def object(self):
        self.pos += 1
        result = {}
        self.skip_whitespace()
        if self.peek() == "}":
            self.pos += 1
            return result
        while True:
            self.skip_whitespace()
            if self.peek() != '"':
                raise JSONError("expected a string key", self.pos)
            key = self.string()
            self.expect(":")
            result[key] = self.value()
            self.skip_whitespace()
            if self.peek() == "}":
                self.pos += 1
                return result
            self.expect(",")

    def hex4(self, at):
        digits = self.text[at:at + 4]
        if len(digits) != 4 or not set(digits) <= _HEX:
            raise JSONError("bad \\u escape", at)
        return int(digits, 16)

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
                parts.append(self.escape())
            elif ord(ch) < 0x20:
                raise JSONError("control character in string", self.pos)
            else:
                parts.append(ch)
                self.pos += 1

    def escape(self):
        code = self.text[self.pos + 1:self.pos + 2]
        if code in _ESCAPES:
            self.pos += 2
            return _ESCAPES[code]
        if code != "u":
            raise JSONError("bad escape", self.pos)
        value = self.hex4(self.pos + 2)
        self.pos += 6
        if 0xD800 <= value < 0xDC00 and self.text.startswith("\\u", self.pos):
            low = self.hex4(self.pos + 2)
            if 0xDC00 <= low < 0xE000:
                self.pos += 6
                value = 0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00)
        return chr(value)


def loads(text):
    parser = _Parser(text)
    result = parser.value()
    parser.skip_whitespace()
    if parser.pos != len(text):
        raise JSONError("extra data", parser.pos)
    return result
