from __future__ import annotations

import ast

from bench.operators.view import SourceView

SOURCE = 'x = "héllo"\nif x < 3:\n    pass\n'.encode("utf-8")


def test_offsets_are_utf8_bytes():
    view = SourceView.of(SOURCE)
    assert view.line_starts == (0, 13, 23, 32)
    constant = ast.parse(SOURCE).body[0].value
    assert (view.start(constant), view.end(constant)) == (4, 12)
    assert view.text(view.start(constant), view.end(constant)) == '"héllo"'


def test_nodes_across_lines_and_line_numbers():
    view = SourceView.of(SOURCE)
    statement = ast.parse(SOURCE).body[1]
    assert view.text(view.start(statement), view.end(statement)) == "if x < 3:\n    pass"
    assert [view.lineno(offset) for offset in (0, 12, 13, 22, 23, 32)] == [1, 1, 2, 2, 3, 4]
