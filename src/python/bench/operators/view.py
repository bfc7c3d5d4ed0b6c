"""One file's bytes and the AST-position arithmetic every operator needs.

The AST gives positions as (line, UTF-8 byte column); edits are byte spans of the file. :class:`SourceView`
turns one into the other and reads text back, so operators never count bytes themselves.
"""

from __future__ import annotations

import ast
import bisect
import re
from dataclasses import dataclass


@dataclass(frozen=True)
class SourceView:
    """One file's bytes with the (line, UTF-8 column) → byte offset mapping the AST positions need."""

    data: bytes
    line_starts: tuple[int, ...]

    @classmethod
    def of(cls, data: bytes) -> SourceView:
        starts = [0]
        starts.extend(match.end() for match in re.finditer(rb"\n", data))
        return cls(data, tuple(starts))

    def start(self, node: ast.AST) -> int:
        return self.line_starts[node.lineno - 1] + node.col_offset

    def end(self, node: ast.AST) -> int:
        return self.line_starts[node.end_lineno - 1] + node.end_col_offset

    def text(self, start: int, end: int) -> str:
        return self.data[start:end].decode("utf-8")

    def lineno(self, offset: int) -> int:
        """The 1-based line that byte ``offset`` is on."""
        return bisect.bisect_right(self.line_starts, offset)
