"""Parentheses left holding one operand: what dropping one side of ``a(left) or a(right)`` leaves behind.

Read from the tokens, since the tree keeps no parentheses: a group (not a call's, a subscript's or a tuple's) that
holds a single name, attribute, call, subscript or comparison, either spread over several lines (``and (``, a
newline, ``check(left)``, a newline, ``)``) or beside ``and``/``or``/``not``/``if`` (``if (self.nargs != 1) and
value == ():``, where ``or self.multiple`` was dropped from the group). Counted on the file before and after a
mutation by :mod:`bench.mutate.anomalies`.
"""

from __future__ import annotations

import ast
import functools
import io
import keyword
import tokenize

from bench import pyast

_SINGLE = (ast.Name, ast.Attribute, ast.Call, ast.Subscript, ast.Compare)


@functools.lru_cache(maxsize=16)  # the released file is asked once per candidate made from it
def lone_groups(source: str) -> int:
    """Parentheses that group a single name, attribute, call, subscript or comparison over several lines (``and
    (``, a newline, ``check(left)``, a newline, ``)``) or beside ``and``/``or``/``not``/``if`` (``if (n != 1) and
    v == ():``): not a call's, a subscript's or a tuple's."""
    try:
        tokens = [t for t in tokenize.generate_tokens(io.StringIO(source).readline)
                  if t.type not in (tokenize.NL, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT)]
    except (tokenize.TokenError, SyntaxError):
        return 0
    lines = source.splitlines(keepends=True)
    count, stack = 0, []
    for index, token in enumerate(tokens):
        previous = tokens[index - 1] if index else None
        if token.type == tokenize.OP and token.string in "([{":
            opens_group = token.string == "(" and not _ends_an_operand(previous)
            stack.append((opens_group, token.end, _is_boolean(previous)))
        elif token.type == tokenize.OP and token.string in ")]}" and stack:
            opens_group, start, after_boolean = stack.pop()
            following = tokens[index + 1] if index + 1 < len(tokens) else None
            if opens_group and (start[0] != token.start[0] or after_boolean or _is_boolean(following, ("and", "or"))):
                count += _holds_one_operand(_between(lines, start, token.start))
    return count


def _is_boolean(token, words=("and", "or", "not", "if", "elif", "while")) -> bool:
    return token is not None and token.type == tokenize.NAME and token.string in words


def _ends_an_operand(token) -> bool:
    """Whether a ``(`` after ``token`` calls or subscripts what comes before it."""
    if token is None:
        return False
    if token.type == tokenize.NAME:
        return not keyword.iskeyword(token.string)
    return token.type == tokenize.STRING or token.type == tokenize.OP and token.string in ")]}"


def _between(lines: list[str], start: tuple[int, int], end: tuple[int, int]) -> str:
    (row, col), (last, stop) = start, end
    if row == last:
        return lines[row - 1][col:stop]
    return lines[row - 1][col:] + "".join(lines[row:last - 1]) + lines[last - 1][:stop]


def _holds_one_operand(inner: str) -> bool:
    try:
        node = pyast.parse("(" + inner + ")", mode="eval").body
    except SyntaxError:
        return False
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        node = node.operand
    return isinstance(node, _SINGLE)
