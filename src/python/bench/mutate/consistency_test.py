import ast

from bench.mutate.consistency import (
    constant_operators,
    flag_polarity,
    odd_ones,
    operand_pairs,
    opposite_protocol_answers,
    short_read_length_tests,
)


def _count(rule, text: str) -> int:
    return rule(ast.parse(text))


def test_odd_ones_counts_extra_kinds_and_the_lone_departure():
    assert odd_ones({"a": ["x", "x", "x"]}) == 0
    assert odd_ones({"a": ["x", "x", "y"]}) == 2
    assert odd_ones({"a": ["x", "y"]}) == 1
    assert odd_ones({"a": ["x", "x", "y", "y"]}) == 1
    assert odd_ones({"a": ["x", "y", "z"], "b": ["x"]}) == 2


def test_a_flag_tested_both_ways_in_ordinary_code_is_no_habit_to_break():
    both = "def f(self):\n    if self.a:\n        g()\n    if not self.a:\n        h()\n    if self.a and not self.b:\n        k()\n"
    assert _count(flag_polarity, both) == 2  # self.a: two plain, one negated; self.b: once
    flipped = both.replace("if not self.a", "if self.a")
    assert _count(flag_polarity, flipped) == 0


def test_a_local_name_is_no_flag_and_not_self_x_counts_once():
    assert _count(flag_polarity, "def f(a):\n    if a:\n        g()\n    if not a:\n        h()\n") == 0
    assert _count(flag_polarity, "def f(self):\n    if not self.a:\n        g()\n") == 0


def test_common_literals_form_no_arithmetic_habit_but_orderings_with_them_do():
    assert _count(constant_operators, "a = n + 1\nb = n + 1\nc = n - 1\n") == 0
    assert _count(constant_operators, "ok = 0 <= a and 0 <= b and 0 < c\n") == 2
    assert _count(constant_operators, "ok = a >= 0 and 0 <= b\n") == 0  # one ordering, written both ways


def test_operand_pairs_are_counted_per_function_in_either_order():
    text = "def f(a, b):\n    return a - b, b - a\n\ndef g(a, b):\n    return a + b\n"
    assert _count(operand_pairs, text) == 0
    assert _count(operand_pairs, text.replace("b - a", "b + a")) == 1


def test_protocol_answers_in_the_right_sense_are_not_counted():
    right = "class C:\n    def __contains__(self, k):\n        return k in self.d\n    def __ne__(self, o):\n        return not self == o\n    def __lt__(self, o):\n        return o > self\n"
    assert _count(opposite_protocol_answers, right) == 0
    wrong = right.replace("k in self.d", "not k in self.d").replace("o > self", "o <= self")
    assert _count(opposite_protocol_answers, wrong) == 2


def test_a_length_test_whose_block_reads_every_counted_element_is_fine():
    assert _count(short_read_length_tests, "if len(p) == 2:\n    return p[0], p[1]\n") == 0
    assert _count(short_read_length_tests, "if len(p) == 2:\n    return p\n") == 0
    assert _count(short_read_length_tests, "if len(p) == 1:\n    return p[0]\n") == 0
    assert _count(short_read_length_tests, "if len(p) == 3:\n    return p[0] + p[1]\n") == 1


def test_a_round_constant_written_twice_or_written_alone_is_no_slip():
    from bench.mutate.consistency import unround_neighbours

    assert _count(unround_neighbours, "a = x / 1000\nb = x * 1000\n") == 0
    assert _count(unround_neighbours, "a = x / 1001\n") == 0  # no 1000 beside it
    assert _count(unround_neighbours, "a = x / 1001\nb = x * 1000\nc = 1001\n") == 0  # written twice: meant
    assert _count(unround_neighbours, "a = x / 61\nb = x * 60\nc = y[255] + 256\n") == 2


def test_conditional_twins_compare_an_expression_with_a_statement():
    from bench.mutate.consistency import conditional_twins_apart

    text = ("def split(xs):\n    return [yes.append(x) if ok(x) else no.append(x) for x in xs]\n\n"
            "def lsplit(xs):\n    for x in xs:\n        if ok(x):\n            yes.append(x)\n        else:\n"
            "            no.append(x)\n")
    assert _count(conditional_twins_apart, text) == 0
    assert _count(conditional_twins_apart, text.replace("if ok(x):", "if not ok(x):")) == 1


def test_a_global_name_no_function_binds_is_a_flag_and_a_bound_one_is_not():
    checks = "def f():\n    if __debug__:\n        g()\n\ndef h():\n    if __debug__:\n        g()\n\n" \
             "def k():\n    if not __debug__:\n        g()\n"
    assert _count(flag_polarity, checks) == 2
    assert _count(flag_polarity, checks.replace("if not __debug__", "if __debug__")) == 0
    bound = checks.replace("def k():", "def k(__debug__):")
    assert _count(flag_polarity, bound) == 0  # a parameter of one function is that function's own value
