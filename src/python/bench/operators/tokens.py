"""Operator tokens: how each AST operator is spelled, and finding that spelling between two operands.

The AST knows an operator's type but not where its token is: the token lies in the gap between the end of one
operand and the start of the next, among blanks, parentheses, line continuations and comments. Two ways of
finding it, one per user:

- :func:`exact_span` (the mutation-task engine): the gap is lexed and must hold exactly the token and nothing
  else; anything unexpected proposes nothing there.
- :func:`searched_span` (the repairer's candidates): the first match of the token's pattern in the gap's text,
  by default only in the text before a comment's ``#``. Recorded repair attempts name candidates by their
  span, so this looser search stays as it was.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Callable

from bench.operators.view import SourceView

Span = tuple[int, int]


@dataclass(frozen=True)
class Token:
    """An operator's source text (words joined by one blank) and a regex finding it in a gap's text."""

    text: str
    pattern: str

    def augmented(self) -> Token:
        """The augmented-assignment form: ``+`` → ``+=``."""
        return Token(self.text + "=", self.pattern + "=")


TOKENS: dict[type, Token] = {
    ast.Lt: Token("<", r"<(?!=)"),
    ast.LtE: Token("<=", r"<="),
    ast.Gt: Token(">", r">(?!=)"),
    ast.GtE: Token(">=", r">="),
    ast.Eq: Token("==", r"=="),
    ast.NotEq: Token("!=", r"!="),
    ast.Is: Token("is", r"\bis\b"),
    ast.IsNot: Token("is not", r"\bis\s+not\b"),
    ast.In: Token("in", r"\bin\b"),
    ast.NotIn: Token("not in", r"\bnot\s+in\b"),
    ast.Add: Token("+", r"\+"),
    ast.Sub: Token("-", r"-"),
    ast.Mult: Token("*", r"(?<!\*)\*(?!\*)"),
    ast.Div: Token("/", r"(?<!/)/(?!/)"),
    ast.FloorDiv: Token("//", r"//"),
    ast.Mod: Token("%", r"%"),
    ast.Pow: Token("**", r"\*\*"),
    ast.LShift: Token("<<", r"<<"),
    ast.RShift: Token(">>", r">>"),
    ast.BitAnd: Token("&", r"&"),
    ast.BitOr: Token("|", r"\|"),
    ast.BitXor: Token("^", r"\^"),
    ast.And: Token("and", r"\band\b"),
    ast.Or: Token("or", r"\bor\b"),
}

# (view, gap start, gap end, token) -> the token's byte span, or None where it is not found
Locate = Callable[[SourceView, int, int, Token], "Span | None"]

_WORD = re.compile(rb"[A-Za-z_]+")
_SYMBOL = re.compile(rb"[-+*/%&|^~@<>=!]+")


def gap_tokens(view: SourceView, start: int, end: int) -> list[tuple[int, int, str]]:
    """The operator tokens between two operands: everything but blanks, parentheses, continuations, comments."""
    tokens = []
    data, pos = view.data, start
    while pos < end:
        char = data[pos : pos + 1]
        if char in b" \t\r\n\f\\()":
            pos += 1
        elif char == b"#":
            newline = data.find(b"\n", pos, end)
            pos = end if newline < 0 else newline
        else:
            match = (_WORD if char.isalpha() or char == b"_" else _SYMBOL).match(data, pos, end)
            if match is None:
                return []  # something unexpected between the operands: propose nothing here
            tokens.append((match.start(), match.end(), match.group().decode()))
            pos = match.end()
    return tokens


def exact_span(view: SourceView, start: int, end: int, token: Token) -> Span | None:
    """The byte span of ``token`` (one or two words, e.g. ``not in``) when it is all the gap holds."""
    tokens = gap_tokens(view, start, end)
    if " ".join(text for _, _, text in tokens) != token.text:
        return None
    return tokens[0][0], tokens[-1][1]


def searched_span(view: SourceView, start: int, end: int, token: Token, *, before_comment: bool = True) -> Span | None:
    """The byte span of the first match of ``token.pattern`` in the gap's text (before any ``#`` in it unless
    ``before_comment`` is False)."""
    gap = view.text(start, end)
    match = re.search(token.pattern, gap.split("#", 1)[0] if before_comment else gap)
    if match is None:
        return None
    return start + len(gap[: match.start()].encode("utf-8")), start + len(gap[: match.end()].encode("utf-8"))
