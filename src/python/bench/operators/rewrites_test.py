from __future__ import annotations

from bench.operators import rewrites
from bench.operators.sites import CONSTANT, SWAP_ARGUMENTS
from bench.operators.sites_test import parsed, realises


def _texts(sites) -> list[tuple[str, ...]]:
    return [tuple(text for _, _, text in site.edits) for site in sites]


def test_constants_keep_their_base_or_go_decimal():
    tree, view = parsed("x = 0x1F\ny = 0\nz = True\n")
    hexadecimal, zero, boolean = (statement.value for statement in tree.body)
    assert _texts(rewrites.constant_sites(hexadecimal, view)) == [("0x20",), ("0x1e",)]
    assert _texts(rewrites.constant_sites(hexadecimal, view, rewrites.decimal_literal)) == [("32",), ("30",)]
    assert _texts(rewrites.constant_sites(zero, view)) == [("1",)]  # -1 is not one literal
    assert _texts(rewrites.constant_sites(zero, view, rewrites.decimal_literal)) == [("1",), ("-1",)]
    assert list(rewrites.constant_sites(boolean, view)) == []
    sites = list(rewrites.constant_sites(hexadecimal, view))
    assert {site.operator for site in sites} == {CONSTANT}
    assert all(realises(tree, view, site, site.edits[0]) for site in sites)


def test_off_by_one_bare_then_in_parentheses():
    tree, view = parsed("s[a << 2:]\n")
    bound = tree.body[0].value.slice.lower
    sites = list(rewrites.off_by_one_sites(bound, view))
    assert _texts(sites) == [("a << 2 + 1", "(a << 2) + 1"), ("a << 2 - 1", "(a << 2) - 1")]
    assert [[realises(tree, view, site, edit) for edit in site.edits] for site in sites] == [[False, True]] * 2


def test_negation_bare_only_for_atoms():
    tree, view = parsed("if x:\n    pass\nwhile x < 3:\n    pass\n")
    atom, compare = (statement.test for statement in tree.body)
    assert _texts(rewrites.negation_sites(atom, view)) == [("not x", "not (x)")]
    assert _texts(rewrites.negation_sites(compare, view)) == [("not (x < 3)",)]
    (site,) = rewrites.negation_sites(compare, view)
    assert realises(tree, view, site, site.edits[0])


def test_dropping_not_keeps_the_layout_or_the_operand_alone():
    tree, view = parsed("if not ( x ):\n    pass\nif not x:\n    pass\n")
    spaced, bare = (statement.test for statement in tree.body)
    assert _texts(rewrites.drop_not_sites(spaced, view)) == [("( x )",)]
    assert _texts(rewrites.drop_not_sites(spaced, view, rewrites.parenthesised_operand)) == [("(x)",)]
    assert _texts(rewrites.drop_not_sites(bare, view, rewrites.parenthesised_operand)) == [("x",)]
    for spell in (rewrites.text_after_not, rewrites.parenthesised_operand):
        (site,) = rewrites.drop_not_sites(spaced, view, spell)
        assert realises(tree, view, site, site.edits[0])


def test_return_none_replaces_the_value_and_return_name_fills_a_bare_return():
    tree, view = parsed("def f(a, b):\n    if a:\n        return\n    return (a +\n            b)  # sum\n")
    bare, valued = tree.body[0].body[0].body[0], tree.body[0].body[1]
    (none,) = rewrites.return_none_sites(valued, view)
    assert view.text(none.start, none.end) == "(a +\n            b)" and none.edits[0][2] == "None"
    assert list(rewrites.return_none_sites(bare, view)) == []
    assert list(rewrites.return_name_sites(valued, view, ["a"])) == []
    names = list(rewrites.return_name_sites(bare, view, ["b", "a"]))
    assert _texts(names) == [("return b",), ("return a",)]
    assert all(realises(tree, view, site, site.edits[0]) for site in [none, *names])


def test_swapping_arguments_of_the_same_kind():
    tree, view = parsed("f(a, b, 1)\ng(a, *b)\n")
    sites = list(rewrites.swap_argument_sites(tree.body[0].value, view))
    assert [(site.operator, site.edits[0]) for site in sites] == [(SWAP_ARGUMENTS, (2, 6, "b, a"))]
    assert realises(tree, view, sites[0], sites[0].edits[0])
    assert list(rewrites.swap_argument_sites(tree.body[1].value, view)) == []
