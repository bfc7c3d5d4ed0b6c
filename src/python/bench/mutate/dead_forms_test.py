import ast

from bench.mutate.dead_forms import (
    defaults_rejected,
    flags_tested_for_type,
    identical_twins,
    options_never_read,
    settled_branches,
    type_tests_after_reads,
    unfilled_placeholders,
    zero_sums,
)


def _count(rule, text: str) -> int:
    return rule(ast.parse(text))


def test_a_placeholder_string_without_its_f_prefix_is_counted_and_templates_are_not():
    written = 'def visit(self, keyword):\n    self.write(f"context.eval_ctx.{keyword.key} = ")\n'
    assert _count(unfilled_placeholders, written) == 0
    assert _count(unfilled_placeholders, written.replace('(f"', '("')) == 1
    templates = ('def show(name, value):\n    a = "{name}: {value}".format(name=name, value=value)\n'
                 '    b = _("{name}").format(name=name)\n    c = "%s {name}" % value\n'
                 '    d = {"k": "{name}"}\n    return a, b, c, d, "{unknown}"\n')
    assert _count(unfilled_placeholders, templates) == 0  # formatted, kept as templates, or naming nothing bound


def test_an_option_stored_from_its_parameter_and_never_read_is_counted():
    fine = ("class Integer:\n    def __init__(self, strict=False):\n        self.strict = strict\n\n"
            "    def check(self, value):\n        if self.strict and not isinstance(value, int):\n            raise TypeError\n")
    assert _count(options_never_read, fine) == 0
    assert _count(options_never_read, fine.replace("self.strict and ", "")) == 1
    by_name = fine.replace("self.strict and ", "").replace("raise TypeError", "raise TypeError(getattr(self, 'strict'))")
    assert _count(options_never_read, by_name) == 0  # read by its name


def test_a_type_test_after_the_read_that_needs_the_type_is_counted():
    fine = ("def eq(self, other):\n    return (type(self) is type(other) and other._included == self._included"
            " or type(other) in (set, frozenset) and self._included == other)\n")
    assert _count(type_tests_after_reads, fine) == 0
    assert _count(type_tests_after_reads, fine.replace("type(self) is type(other) and ", "")) == 1


def test_a_bare_test_of_a_leading_slice_settles_a_later_branch_that_needs_the_whole():
    fine = ('def match(match_expr):\n    prefix = match_expr[:2]\n    if prefix in (">=", "<="):\n        return 1\n'
            '    elif prefix and prefix[0] in (">", "<"):\n        return 2\n'
            '    elif match_expr and match_expr[0] in "0123456789":\n        return 3\n    return 0\n')
    assert _count(settled_branches, fine) == 0
    assert _count(settled_branches, fine.replace('prefix and prefix[0] in (">", "<")', "prefix")) == 1


def test_a_call_in_a_placeholder_counts_like_a_name():
    written = 'def natural(items):\n    return f"{str(items[0])}" + f" and {str(items[-1])}"\n'
    assert _count(unfilled_placeholders, written) == 0
    assert _count(unfilled_placeholders, written.replace('+ f"', '+ "')) == 1


def test_a_test_that_holds_for_the_parameters_default_before_a_raise_is_counted():
    fine = ("def walk(root, on_error=None):\n    if on_error is not None and not callable(on_error):\n"
            "        raise TypeError(on_error)\n    return root\n")
    assert _count(defaults_rejected, fine) == 0
    assert _count(defaults_rejected, fine.replace("on_error is not None and not callable", "not callable")) == 1
    unknown = "def f(x=None):\n    if not isinstance(x, (int, type(None))):\n        raise TypeError(x)\n"
    assert _count(defaults_rejected, unknown) == 0  # the type test admits None: cannot be told


def test_a_boolean_flag_tested_for_a_type_is_counted():
    fine = "def kind(string, numparse=True):\n    if isinstance(string, bytes):\n        return bytes\n    return numparse\n"
    assert _count(flags_tested_for_type, fine) == 0
    assert _count(flags_tested_for_type, fine.replace("isinstance(string, bytes)", "isinstance(numparse, bytes)")) == 1
    assert _count(flags_tested_for_type, fine.replace("isinstance(string, bytes)", "isinstance(numparse, bool)")) == 0


def test_a_sum_of_zeros_is_counted():
    fine = "def count(seq):\n    if hasattr(seq, '__len__'):\n        return len(seq)\n    return sum(1 for i in seq)\n"
    assert _count(zero_sums, fine) == 0
    assert _count(zero_sums, fine.replace("sum(1 for", "sum(0 for")) == 1


def test_two_functions_made_the_same_are_counted_and_stubs_are_not():
    fine = ('def select_keys(pred, coll):\n    """Keys."""\n    return select(lambda pair: pred(pair[0]), coll)\n\n\n'
            'def select_values(pred, coll):\n    """Values."""\n    return select(lambda pair: pred(pair[1]), coll)\n')
    assert _count(identical_twins, fine) == 0
    assert _count(identical_twins, fine.replace("pair[1]", "pair[0]")) == 1
    stubs = "def a(self):\n    raise NotImplementedError\n\n\ndef b(self):\n    raise NotImplementedError\n"
    assert _count(identical_twins, stubs) == 0
