from __future__ import annotations

from bench.probes.targets import definitions, enclosing, public, readers

SOURCE = '''import re

PATTERN = re.compile("a+")
LIMIT = 3


def top(x):
    def inner():
        return x
    return inner()


class Box:
    @property
    def size(self):
        return LIMIT

    def _private(self):
        return PATTERN.match("a")

    class Inner:
        def deep(self):
            return 1


async def later():
    return 1
'''


def test_definitions_are_module_functions_and_methods_of_classes():
    assert [name for name, _, _ in definitions(SOURCE)] == ["top", "Box.size", "Box._private", "Box.Inner.deep"]


def test_a_change_inside_a_nested_function_probes_the_function_holding_it():
    assert enclosing(SOURCE, {9}) == ["top"]
    assert enclosing(SOURCE, {15}) == ["Box.size"]  # the decorator line belongs to the method


def test_a_changed_module_constant_probes_the_functions_that_read_it():
    assert enclosing(SOURCE, {4}) == []
    assert readers(SOURCE, {4}) == ["Box.size"]
    assert readers(SOURCE, {3}) == ["Box._private"]


def test_public_leaves_out_private_names():
    assert public(SOURCE) == ["top", "Box.size", "Box.Inner.deep"]
