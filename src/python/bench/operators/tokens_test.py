from __future__ import annotations

import ast

from bench.operators.tables import ARITHMETIC_SWAPS, BOOLEAN_SWAPS, COMPARISON_SWAPS
from bench.operators.tokens import TOKENS, exact_span, gap_tokens, searched_span
from bench.operators.view import SourceView


def _gap(source: str) -> tuple[SourceView, int, int]:
    """The view of ``source`` and the gap between the two operands of its only binary or compare node."""
    view = SourceView.of(source.encode("utf-8"))
    node = ast.parse(source).body[0].value
    left, right = (node.left, node.right) if isinstance(node, ast.BinOp) else (node.left, node.comparators[0])
    return view, view.end(left), view.start(right)


def test_every_operator_of_the_tables_has_a_token():
    for table in (COMPARISON_SWAPS, ARITHMETIC_SWAPS, BOOLEAN_SWAPS):
        assert set(table) | set(table.values()) <= set(TOKENS)


def test_gap_tokens_skip_blanks_parentheses_continuations_and_comments():
    view, start, end = _gap("(a  # left < side\n  ) \\\n not  in (b)")
    assert [text for _, _, text in gap_tokens(view, start, end)] == ["not", "in"]
    assert view.text(*exact_span(view, start, end, TOKENS[ast.NotIn])) == "not  in"


def test_exact_span_wants_the_token_and_nothing_else():
    view, start, end = _gap("a < b")
    assert exact_span(view, start, end, TOKENS[ast.Lt]) == (2, 3)
    assert exact_span(view, start, end, TOKENS[ast.LtE]) is None
    odd = SourceView.of(b"a ? < b")
    assert gap_tokens(odd, 1, 6) == [] and exact_span(odd, 1, 6, TOKENS[ast.Lt]) is None


def test_searched_span_stops_at_a_comment_unless_told_not_to():
    view, start, end = _gap("(a  # x < y\n < b)")
    assert exact_span(view, start, end, TOKENS[ast.Lt]) == (13, 14)
    assert searched_span(view, start, end, TOKENS[ast.Lt]) is None
    assert searched_span(view, start, end, TOKENS[ast.Lt], before_comment=False) == (8, 9)  # in the comment


def test_searched_span_counts_bytes_and_patterns_keep_tokens_apart():
    view, start, end = _gap("(a)  ** b")
    assert searched_span(view, start, end, TOKENS[ast.Pow]) == (5, 7)
    assert searched_span(view, start, end, TOKENS[ast.Mult]) is None  # `*` is not half of `**`
    view = SourceView.of("'é'  <= b".encode("utf-8"))
    assert searched_span(view, 4, 9, TOKENS[ast.LtE]) == (6, 8)


def test_augmented_tokens():
    assert TOKENS[ast.FloorDiv].augmented() == type(TOKENS[ast.FloorDiv])("//=", "//=")
    view = SourceView.of(b"a //= b")
    assert exact_span(view, 1, 6, TOKENS[ast.FloorDiv].augmented()) == (2, 5)
    assert searched_span(view, 1, 6, TOKENS[ast.FloorDiv].augmented()) == (2, 5)
