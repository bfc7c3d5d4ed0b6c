import ast

from bench.mutate.lone_forms import (
    cancelling_clauses,
    chain_polarity,
    exits_when_present_then_reads,
    guards_the_twin_keeps,
    sentinels_passed_on,
    unguarded_optionals,
)

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
    assert _count(chain_polarity, chain.replace("elif isinstance(d, set)", "elif not isinstance(d, set)")) == 1
    pair = "if x is False:\n    f()\nelif x is not True:\n    g()\n"
    assert _count(chain_polarity, pair) == 0  # one each way: no habit to break
    separate = "if not isinstance(d, str):\n    f()\nif isinstance(d, int):\n    g()\nif isinstance(d, set):\n    h()\n"
    assert _count(chain_polarity, separate) == 0  # three chains of one test each


def test_a_subject_compared_the_other_way_in_one_branch_of_its_chain_is_counted():
    chain = ('def colons(align, width):\n    if align in ["right", "decimal"]:\n        return 1\n'
             '    elif align == "center":\n        return 2\n    elif align == "left":\n        return 3\n    return 0\n')
    assert _count(chain_polarity, chain) == 0
    assert _count(chain_polarity, chain.replace('align == "left"', 'align != "left"')) == 1


def test_a_name_holding_a_clause_of_the_same_test_is_counted():
    fine = ("def f(idx, last, body, value):\n    has_ws = ends(value)\n    next_ws = idx < last and blank(body[idx + 1])\n"
            "    if (idx < last or value) and not (next_ws or has_ws):\n        value.append(1)\n")
    assert _count(cancelling_clauses, fine) == 0
    assert _count(cancelling_clauses, fine.replace(" and blank(body[idx + 1])", "")) == 1
    twice = fine.replace("    has_ws = ends(value)\n", "    next_ws = idx < last\n    has_ws = ends(value)\n")
    assert _count(cancelling_clauses, twice.replace(" and blank(body[idx + 1])", "")) == 0  # two values: no one clause


def test_a_sentinel_handed_on_in_the_branch_where_it_is_the_sentinel_is_counted():
    fine = ("def partition(n, seq, pad=no_pad):\n    args = [iter(seq)] * n\n    if pad is no_pad:\n"
            "        return zip(*args)\n    else:\n        return zip_longest(*args, fillvalue=pad)\n")
    assert _count(sentinels_passed_on, fine) == 0
    assert _count(sentinels_passed_on, fine.replace("pad is no_pad", "pad is not no_pad")) == 1
    assert _count(sentinels_passed_on, "if x is not None:\n    f(x)\nelse:\n    f(None)\n") == 0  # None: not a named marker


def test_leaving_when_the_value_is_there_then_reading_it_is_counted():
    fine = ("def message(self):\n    if not self.possibilities:\n        return self.text\n"
            "    names = sorted(self.possibilities)\n    return names\n")
    assert _count(exits_when_present_then_reads, fine) == 0
    flipped = fine.replace("if not self.possibilities", "if self.possibilities")
    assert _count(exits_when_present_then_reads, flipped) == 1
    memo = "def get(self):\n    if self.cache:\n        return self.cache\n    self.cache = load()\n    return list(self.cache)\n"
    assert _count(exits_when_present_then_reads, memo) == 0  # assigned again before it is read
