import ast

from bench.mutate.lint_slips import (
    calls_for_nothing,
    loop_variables_read_after,
    passed_through_on_failure,
    settled_tests,
)


def _count(rule, text: str) -> int:
    return rule(ast.parse(text))


def test_a_loop_variable_assigned_before_its_loop_may_be_read_after_it():
    assert _count(loop_variables_read_after, "def f(xs):\n    for x in xs:\n        pass\n    return x\n") == 1
    assert _count(loop_variables_read_after, "def f(xs):\n    x = None\n    for x in xs:\n        pass\n    return x\n") == 0
    assert _count(loop_variables_read_after, "def f(xs):\n    for x in xs:\n        y = x\n    return xs\n") == 0
    nested = "def f(rows):\n    for row in rows:\n        for cell in row:\n            pass\n        print(cell)\n"
    assert _count(loop_variables_read_after, nested) == 1


def test_identity_tests_are_settled_only_by_the_same_subject_left_unassigned():
    text = "def f(x, y):\n    if x is None:\n        if y is None:\n            return 1\n    else:\n        if x is None:\n            return 2\n"
    assert _count(settled_tests, text) == 1
    reassigned = "def f(x):\n    if x is None:\n        x = g()\n        if x is None:\n            return 1\n"
    assert _count(settled_tests, reassigned) == 0
    open_question = "def f(x):\n    if x is not False:\n        if x is True:\n            return 1\n"
    assert _count(settled_tests, open_question) == 0  # x may be True or anything else


def test_a_zero_only_counts_where_the_call_reads_counts_or_splits():
    assert _count(calls_for_nothing, "a = f.read(0)\nb = range(0)\nc = islice(xs, 0)\nd = s.split(',', 0)\n") == 4
    assert _count(calls_for_nothing, "a = f.read(1)\nb = range(0, n)\nc = islice(xs, 0, 3)\nd = f.seek(0)\n") == 0


def test_conversion_on_the_branch_that_passed_is_the_idiom():
    assert _count(passed_through_on_failure, "y = x if isinstance(x, tuple) else tuple(x)\n") == 0
    assert _count(passed_through_on_failure, "y = x if not isinstance(x, tuple) else tuple(x)\n") == 1
    assert _count(passed_through_on_failure, "y = tuple(x) if is_error(x) else x\n") == 1


def test_a_value_read_outside_its_own_update_or_by_a_closure_is_used():
    from bench.mutate.lint_slips import self_fed_values

    assert _count(self_fed_values, "def f(xs):\n    n = 0\n    for x in xs:\n        n = n + x\n    return xs\n") == 1
    assert _count(self_fed_values, "def f(xs):\n    n = 0\n    for x in xs:\n        n += x\n    return n\n") == 0
    closure = "def f(xs):\n    n = 0\n    n = n + 1\n    def g():\n        return n\n    return g\n"
    assert _count(self_fed_values, closure) == 0


def test_an_attribute_read_after_a_guard_that_leaves_only_when_it_is_missing_is_fine():
    from bench.mutate.lint_slips import attribute_read_after_leaving_when_present

    right = "def f(a):\n    if not hasattr(a, 'run'):\n        sys.exit(1)\n    return a.run()\n"
    assert _count(attribute_read_after_leaving_when_present, right) == 0
    wrong = right.replace("if not hasattr", "if hasattr")
    assert _count(attribute_read_after_leaving_when_present, wrong) == 1


def test_a_character_into_text_and_a_count_into_a_list_never_joined_are_fine():
    from bench.mutate.lint_slips import numbers_into_text

    text = "def f(s):\n    out = []\n    for i, c in enumerate(s):\n        out.append(c)\n    return ''.join(out)\n"
    assert _count(numbers_into_text, text) == 0
    assert _count(numbers_into_text, text.replace("out.append(c)", "out.append(i)")) == 1
    assert _count(numbers_into_text, text.replace("out.append(c)", "out.append(i)").replace("''.join(out)", "out")) == 0


def test_not_implemented_behind_a_negated_type_test_is_the_idiom():
    from bench.mutate.lint_slips import not_implemented_for_own_type

    right = "def __eq__(self, other):\n    if not isinstance(other, int):\n        return NotImplemented\n    return other == self.v\n"
    assert _count(not_implemented_for_own_type, right) == 0
    assert _count(not_implemented_for_own_type, right.replace("if not isinstance", "if isinstance")) == 1
