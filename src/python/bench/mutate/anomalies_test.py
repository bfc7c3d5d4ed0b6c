"""Each anomaly on a constructed file: the exact count before and after one mutation, and the verdict."""

from __future__ import annotations

from bench.mutate.anomalies import added_anomaly, maybe_unbound_reads, none_then_read, reversed_twin_calls

PARSER = b'''def call(self, left, token):
    if left["type"] != "field":
        prev = self.tokens[-2]
        raise ParseError(prev)
    name = left["value"]
    args = [a for a in self.args(name)]
    for item in args:
        last = item
    return name, item, args
'''


def _mutate(text: bytes, old: bytes, new: str, nth: int = 0) -> tuple[int, int, str]:
    start = -1
    for _ in range(nth + 1):
        start = text.index(old, start + 1)
    return start, start + len(old), new


def test_a_name_bound_only_in_a_branch_that_raises_is_a_read_that_may_be_unbound():
    import ast

    assert maybe_unbound_reads(ast.parse(PARSER)) == 0  # a loop variable, a comprehension's, a parameter: fine
    # name = left["value"] -> name = prev: prev is assigned only inside the if that raises
    start, end, new = _mutate(PARSER, b'left["value"]', "prev")
    assert added_anomaly(PARSER, start, end, new) == "a read of a name that may be unbound"
    start, end, new = _mutate(PARSER, b'left["value"]', "token")  # a parameter: bound everywhere
    assert maybe_unbound_reads(ast.parse(PARSER[:start] + new.encode() + PARSER[end:])) == 0


COMPLETE = b'''def visible(ctx, names):
    for name in names:
        command = ctx.get(name)
        if command is not None and not command.hidden:
            yield name
'''


def test_a_guard_that_then_reads_the_value():
    import ast

    assert none_then_read(ast.parse(COMPLETE)) == 0
    start, end, new = _mutate(COMPLETE, b"command is not None", "command is None")
    assert added_anomaly(COMPLETE, start, end, new) == "a guard that then reads the value"
    start, end, new = _mutate(COMPLETE, b" and not", " or not")  # x is not None or x.hidden: the same flaw
    assert added_anomaly(COMPLETE, start, end, new) == "a guard that then reads the value"
    escape = b"def escape(v):\n    return '..' if isinstance(v, str) and not v.strip() else v\n"
    start, end, new = _mutate(escape, b" and not", " or not")  # the type guard fails, then .strip() runs
    assert added_anomaly(escape, start, end, new) == "a guard that then reads the value"


def test_arithmetic_that_does_nothing():
    every = b"def every(threshold):\n    return int(1 / threshold)\n\n\ndef less(a, b):\n    return a - b\n"
    start, end, new = _mutate(every, b"/", "*")
    assert added_anomaly(every, start, end, new) == "arithmetic that does nothing"
    start, end, new = _mutate(every, b"/", "-")  # 1 - threshold: a wrong operator, not a no-op
    assert added_anomaly(every, start, end, new) == ""


WRAPPERS = b'''def assert_count(self, *args):
    return getattr(self, _count)(*args)


def assert_raises(self, *args):
    return getattr(self, _raises)(*args)


def assert_regex(self, *args):
    return getattr(self, _regex)(*args)


def pair(a, b):
    return divmod(a, b)
'''


def test_arguments_in_the_reverse_of_the_files_own_order():
    import ast

    assert reversed_twin_calls(ast.parse(WRAPPERS)) == 0
    start, end, new = _mutate(WRAPPERS, b"self, _regex", "_regex, self")
    assert added_anomaly(WRAPPERS, start, end, new) == "arguments in the reverse of the file's own order"
    start, end, new = _mutate(WRAPPERS, b"a, b)", "b, a)", nth=1)  # no twin in the file, but divmod is a builtin
    assert reversed_twin_calls(ast.parse(WRAPPERS[:start] + new.encode() + WRAPPERS[end:])) == 0
    assert added_anomaly(WRAPPERS, start, end, new) == "arguments whose order every reader knows"


def test_a_value_built_and_dropped_a_guard_on_a_missing_match_and_a_store_under_another_key():
    built = b"def itemmap(f, d, factory=dict):\n    rv = factory()\n    rv.update(map(f, d.items()))\n    return rv\n"
    start, end, new = _mutate(built, b"return rv", "return d")
    assert added_anomaly(built, start, end, new) == "a value built and never used"
    match = b"def parse(m, text):\n    if m:\n        return m.group(1)\n    return text\n"
    start, end, new = _mutate(match, b"if m:", "if not m:")
    assert added_anomaly(match, start, end, new) == "a guard that then reads the value"
    cached = (b"def wrapper(*args):\n    k = key(*args)\n    try:\n        return cache[k]\n    except KeyError:\n"
              b"        pass\n    v = func(*args)\n    cache[k] = v\n    return v\n")
    start, end, new = _mutate(cached, b"cache[k] = v", "cache[args] = v")
    assert added_anomaly(cached, start, end, new) == "a store under another key than the lookup"


def test_a_call_whose_arguments_a_call_nearby_passes_the_other_way_round():
    pair = b"def valid(sig, args, kwargs):\n    return check_valid(sig, args, kwargs)\n\n\n" \
           b"def partial(sig, args, kwargs):\n    return check_partial(sig, args, kwargs)\n"
    start, end, new = _mutate(pair, b"sig, args, kwargs)", "sig, kwargs, args)", nth=1)  # the first call
    assert added_anomaly(pair, start, end, new) == "arguments in the reverse of the file's own order"


def test_a_guard_that_returns_when_the_value_is_usable_then_uses_it_and_other_contradictions():
    sentinel = b"def wrap(self, other):\n    result = op(self, other)\n    if result is NotImplemented:\n" \
               b"        return result\n    return self._new(result)\n"
    start, end, new = _mutate(sentinel, b"result is NotImplemented", "result is not NotImplemented")
    assert added_anomaly(sentinel, start, end, new) == "a guard that then reads the value"
    twice = (b"def init(keys, values):\n    if keys is None:\n        keys = RAW\n    if values is None:\n"
             b"        values = RAW\n    return keys, values\n")
    start, end, new = _mutate(twice, b"values is None", "keys is None")
    assert added_anomaly(twice, start, end, new) == "the same condition tested twice in a row"
    fixup = b"class Fixup:\n    def __init__(self, stream, readable):\n        pass\n\n\n" \
            b"def wrap(stream, readable):\n    return Fixup(stream, readable)\n"
    start, end, new = _mutate(fixup, b"Fixup(stream, readable)", "Fixup(readable, stream)")
    assert added_anomaly(fixup, start, end, new) == "arguments against the callee's own signature"


COMPARE = b'''def compare(self, node):
    left = node.left
    for op, right in zip(node.ops, node.comparators):
        if (
                isinstance(op, Is) and (
                    literal(left) or
                    literal(right)
                )
        ):
            self.report(node, left, right)
        left = right
'''


def test_a_dropped_clause_that_leaves_one_operand_in_its_parentheses_is_refused():
    start, end, new = _mutate(COMPARE, b"literal(left) or\n                    literal(right)", "literal(left)")
    assert added_anomaly(COMPARE, start, end, new) == "parentheses holding one operand"
    start, end, new = _mutate(COMPARE, b"literal(left) or", "literal(right) or")  # still a group of two
    assert added_anomaly(COMPARE, start, end, new) != "parentheses holding one operand"
