"""A comment or docstring right next to a mutated line that the mutant may now contradict (readers' rule G5).

A reader found a mutant kept by both screens whose site a comment directly above gives away: the comment says a
document can be both XML and HTML, and the mutant makes that impossible. This module finds the **candidates**
for that rule, to be read by hand: the comment and docstring lines within ``NEAR`` lines of the mutated span
of the mutant file (the span's own lines included) that mention a word the mutant changed — a name (or a part
of it of 4+ letters), keyword or literal the replacement drops or brings in, or a word of an operator it drops
or brings in (``less``, ``greater``, ``equal`` …; for ``and`` / ``or`` / ``not`` any of ``both``, ``either``,
``only`` …). Whether the mutant contradicts what the line says is the reader's call:
many candidates only share a word with the change.
"""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass

NEAR = 2  # lines above and below the mutated span
_OPERATOR_WORDS = {
    "<": ("less", "smaller", "below", "before", "fewer"), ">": ("greater", "larger", "more", "above", "after",
                                                               "exceed"),
    "<=": ("less", "most", "up to"), ">=": ("greater", "least"), "==": ("equal", "same"),
    "!=": ("not", "differ"), "+": ("add", "plus", "sum"), "-": ("subtract", "minus"),
    "is": ("is",), "in": ("in",),
}
# a boolean operator dropped or brought in changes what may hold together: any of these words can say it
_LOGIC = ("and", "or", "not", "both", "either", "neither", "only", "unless", "without")
_OPERATOR_WORDS.update({word: _LOGIC for word in ("and", "or", "not")})
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True)
class Candidate:
    line: int  # 1-based line of the comment or docstring in the released file
    text: str
    words: tuple[str, ...]  # the changed words it mentions


def _tokens(text: str) -> list[str]:
    try:
        found = [t.string for t in tokenize.generate_tokens(io.StringIO(text).readline)
                 if t.type in (tokenize.NAME, tokenize.OP, tokenize.NUMBER, tokenize.STRING)]
    except (tokenize.TokenError, IndentationError, SyntaxError):
        found = _WORD.findall(text)
    return found


def changed_words(original: str, replacement: str) -> set[str]:
    """The words a reader would look for: names, keywords and literals that one side has and the other lacks,
    and the words of the operators that differ."""
    old, new = _tokens(original), _tokens(replacement)
    differing = (set(old) - set(new)) | (set(new) - set(old))
    if not differing and old != new:
        differing = set(old) ^ set(new) or {t for t, u in zip(old, new) if t != u}
    words = set()
    for token in differing:
        if token in _OPERATOR_WORDS:
            words |= set(_OPERATOR_WORDS[token])
        elif _WORD.fullmatch(token) and len(token) >= 2:
            words.add(token.lower())  # the name, and its parts of 4+ letters (has_html_namespace: html)
            words |= {part.lower() for part in re.findall(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+", token)
                      if len(part) >= 4}
        elif token[:1] in "'\"" and len(token.strip("'\"")) >= 2:
            words |= {w.lower() for w in _WORD.findall(token) if len(w) >= 3}
        elif token[:1].isdigit():
            words.add(token)
    return words


def _comment_lines(source: str) -> dict[int, str]:
    """1-based line -> the comment or docstring text on that line."""
    found: dict[int, str] = {}
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return found
    previous = tokenize.NEWLINE
    for token in tokens:
        if token.type == tokenize.COMMENT:
            found[token.start[0]] = token.string.lstrip("#").strip()
        elif token.type == tokenize.STRING and previous in (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
                                                             tokenize.NL) and token.string.lstrip("rbuRBU")[:3] in \
                ('"""', "'''"):
            for offset, line in enumerate(token.string.splitlines()):
                found[token.start[0] + offset] = line.strip().strip("\"'").strip()
        if token.type not in (tokenize.COMMENT, tokenize.NL):
            previous = token.type
    return found


def candidates(original: bytes, start: int, end: int, replacement: str) -> tuple[Candidate, ...]:
    """The comment and docstring lines of the mutant file within NEAR lines of the mutated span (``start:end``
    of ``original``, replaced by ``replacement``) that mention a word the replacement changes. Lines are
    those of the mutant file: a comment the mutant removes with its code is gone, not contradicted."""
    new = replacement.encode("utf-8")
    mutant = original[:start] + new + original[end:]
    first = original[:start].count(b"\n") + 1
    last = first + new.count(b"\n")
    words = changed_words(original[start:end].decode("utf-8", "replace"), replacement)
    if not words:
        return ()
    found = []
    for number, text in sorted(_comment_lines(mutant.decode("utf-8", "replace")).items()):
        if first - NEAR <= number <= last + NEAR:
            lowered = text.lower()
            hits = tuple(sorted(w for w in words if re.search(rf"(?<![\w]){re.escape(w)}(?![\w])", lowered)))
            if hits:
                found.append(Candidate(number, text, hits))
    return tuple(found)
