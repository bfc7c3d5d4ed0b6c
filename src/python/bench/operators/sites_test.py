from __future__ import annotations

import ast
import copy

from bench.operators.sites import (
    ARITHMETIC,
    COMPARISON,
    Site,
    arithmetic_sites,
    boolean_sites,
    comparison_sites,
    keyword_spans,
    replace_spans,
)
from bench.operators.tables import ARITHMETIC_SWAPS, CLASSIC_ARITHMETIC, COMPARISON_SWAPS, forward, with_inverses
from bench.operators.tokens import searched_span
from bench.operators.view import SourceView


def parsed(source: str) -> tuple[ast.Module, SourceView]:
    return ast.parse(source), SourceView.of(source.encode("utf-8"))


def realises(tree: ast.Module, view: SourceView, site: Site, edit: tuple[int, int, str]) -> bool:
    """Whether ``edit`` turns the file into exactly ``tree`` with ``site.target`` replaced by its build."""
    start, end, text = edit
    try:
        mutated = ast.parse(view.data[:start] + text.encode("utf-8") + view.data[end:])
    except SyntaxError:
        return False
    return ast.dump(mutated) == _dump_with(tree, site.target, site.build(copy.deepcopy(site.target)))


def _dump_with(tree: ast.Module, target: ast.AST, new: ast.AST) -> str:
    """The dump of ``tree`` with ``new`` in the place of ``target`` (the tree is left as it was)."""
    for parent in ast.walk(tree):
        for field, value in ast.iter_fields(parent):
            if value is target:
                setattr(parent, field, new)
                try:
                    return ast.dump(tree)
                finally:
                    setattr(parent, field, target)
            for index, item in enumerate(value if isinstance(value, list) else ()):
                if item is target:
                    value[index] = new
                    try:
                        return ast.dump(tree)
                    finally:
                        value[index] = target
    raise AssertionError("the target is not in the tree")


def test_comparison_sites_one_per_operator_of_a_chain():
    tree, view = parsed("a < b <= c\n")
    sites = list(comparison_sites(tree.body[0].value, view, forward(COMPARISON_SWAPS)))
    assert [(s.operator, s.edits) for s in sites] == [(COMPARISON, ((2, 3, "<="),)), (COMPARISON, ((6, 8, "<"),))]
    assert all(realises(tree, view, site, site.edits[0]) for site in sites)


def test_arithmetic_sites_one_per_replacement_of_the_table():
    tree, view = parsed("a * b\nc //= d\n")
    table = with_inverses(ARITHMETIC_SWAPS, CLASSIC_ARITHMETIC)
    product = list(arithmetic_sites(tree.body[0].value, view, table))
    assert [s.edits[0] for s in product] == [(2, 3, "/"), (2, 3, "**"), (2, 3, "//")]
    augmented = list(arithmetic_sites(tree.body[1], view, forward(ARITHMETIC_SWAPS)))
    assert [(s.operator, s.edits[0]) for s in augmented] == [(ARITHMETIC, (8, 11, "/="))]
    assert all(realises(tree, view, site, site.edits[0]) for site in product + augmented)


def test_operators_without_a_swap_and_tokens_not_found_give_nothing():
    tree, view = parsed("a @ b\n(a  # x\n < b)\n")
    assert list(arithmetic_sites(tree.body[0].value, view, forward(ARITHMETIC_SWAPS))) == []
    compare = tree.body[1].value
    assert len(list(comparison_sites(compare, view, forward(COMPARISON_SWAPS)))) == 1
    assert list(comparison_sites(compare, view, forward(COMPARISON_SWAPS), searched_span)) == []


def test_boolean_swap_keywords_then_the_whole_node_in_parentheses():
    tree, view = parsed("a or b and c  # all\n")
    outer = tree.body[0].value
    inner = outer.values[1]
    (site,) = boolean_sites(inner, view)
    assert [text for _, _, text in site.edits] == ["or", "(b or c)"]
    assert [realises(tree, view, site, edit) for edit in site.edits] == [False, True]
    (whole,) = boolean_sites(outer, view)
    assert not any(realises(tree, view, whole, edit) for edit in whole.edits)


def test_keyword_spans_and_replacing_them():
    tree, view = parsed("x = (a  # and\n  and b and c)\n")
    node = tree.body[0].value
    assert keyword_spans(node, view, searched_span) == [None, (22, 25)]
    assert list(boolean_sites(node, view))[0].edits[0] == (16, 25, "or b or")
    spans = [(16, 19), (22, 25)]
    assert replace_spans(view, view.start(node), view.end(node), spans, "or") == "a  # and\n  or b or c"
