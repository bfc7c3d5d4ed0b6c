from bench.mutate.parentheses import lone_groups


def test_parentheses_over_lines_holding_one_call_are_counted_and_calls_tuples_and_groups_are_not():
    both = "if (\n        ok(op) and (\n            check(left) or\n            check(right)\n        )\n):\n    f()\n"
    assert lone_groups(both) == 0
    assert lone_groups(both.replace("check(left) or\n", "check(left)\n").replace("check(right)\n", "")) == 1
    assert lone_groups("x = f(\n    a,\n)\ny = (\n    a,\n)\nz = d[\n    k\n]\n") == 0
    assert lone_groups("x = (\n    'two '\n    'strings'\n)\n") == 0
    assert lone_groups("x = (\n    not done\n)\nif (a):\n    f()\n") == 2  # over lines, and beside ``if``
    assert lone_groups("x = (a)\n") == 0  # one line, beside no boolean keyword
    assert lone_groups("x = (\n") == 0  # text that does not tokenize counts nothing


def test_one_comparison_in_parentheses_beside_and_or_is_counted():
    group = "def missing(self, value):\n    if (self.nargs != 1 or self.multiple) and value == ():\n        return True\n"
    assert lone_groups(group) == 0
    assert lone_groups(group.replace(" or self.multiple", "")) == 1
    assert lone_groups("x = (a == b)\ny = (a != 1) + bool(m)\n") == 0  # an assignment's or arithmetic's parentheses
