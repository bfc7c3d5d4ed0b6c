import ast

from bench.mutate.lone_forms import chain_polarity, guards_the_twin_keeps, lone_groups, unguarded_optionals

CLAMP = """def clamp(value, floor=None, ceil=None):
    if floor is not None and value < floor:
        value = floor
    elif ceil is not None and value > ceil:
        value = ceil
    return value
"""


def _count(rule, text: str) -> int:
    return rule(ast.parse(text))


def test_a_none_default_compared_without_any_test_of_it_is_counted():
    assert _count(unguarded_optionals, CLAMP) == 0
    dropped = CLAMP.replace("elif ceil is not None and value > ceil", "elif value > ceil")
    assert _count(unguarded_optionals, dropped) == 1
    assert _count(unguarded_optionals, "def f(a, b=None):\n    b = b or 1\n    return a + b\n") == 0
    assert _count(unguarded_optionals, "def f(a, b=0):\n    return a + b\n") == 0
    assert _count(unguarded_optionals, "def f(fmt, b=None):\n    return fmt % b\n") == 0  # formats None fine


def test_a_none_default_copied_to_an_attribute_then_computed_with_is_counted():
    fallback = ("class C:\n    def __init__(self, name, module, real=None):\n        self.real = real or name\n"
                "        self.full = module + self.real\n")
    assert _count(unguarded_optionals, fallback) == 0
    assert _count(unguarded_optionals, fallback.replace("real or name", "real")) == 1


def test_a_bare_comparison_beside_its_guarded_twin_in_one_chain_is_counted():
    assert _count(guards_the_twin_keeps, CLAMP) == 0
    dropped = CLAMP.replace("elif ceil is not None and value > ceil", "elif value > ceil")
    assert _count(guards_the_twin_keeps, dropped) == 1
    apart = "if a is not None and x < a:\n    f()\n\nif x > b:\n    g()\n"  # two chains: no twins
    assert _count(guards_the_twin_keeps, apart) == 0


def test_a_predicate_negated_in_one_branch_of_its_chain_is_counted():
    chain = ("def join(d):\n    if isinstance(d, str):\n        return 1\n    elif isinstance(d, dict):\n"
             "        return 2\n    elif isinstance(d, set):\n        return 3\n    else:\n        raise TypeError\n")
    assert _count(chain_polarity, chain) == 0
    assert _count(chain_polarity, chain.replace("elif isinstance(d, set)", "elif not isinstance(d, set)")) == 2
    separate = "if not isinstance(d, str):\n    f()\nif isinstance(d, int):\n    g()\nif isinstance(d, set):\n    h()\n"
    assert _count(chain_polarity, separate) == 0  # three chains of one test each


def test_parentheses_over_lines_holding_one_call_are_counted_and_calls_tuples_and_groups_are_not():
    both = "if (\n        ok(op) and (\n            check(left) or\n            check(right)\n        )\n):\n    f()\n"
    assert lone_groups(both) == 0
    assert lone_groups(both.replace("check(left) or\n", "check(left)\n").replace("check(right)\n", "")) == 1
    assert lone_groups("x = f(\n    a,\n)\ny = (\n    a,\n)\nz = d[\n    k\n]\n") == 0
    assert lone_groups("x = (\n    'two '\n    'strings'\n)\n") == 0
    assert lone_groups("x = (\n    not done\n)\nif (a):\n    f()\n") == 1  # one line apart: a habit, not a slip
    assert lone_groups("x = (\n") == 0  # text that does not tokenize counts nothing
