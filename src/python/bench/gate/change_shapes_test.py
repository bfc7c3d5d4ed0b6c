"""The change shapes on constructed sources: each asserts the exact names or tests found."""

from __future__ import annotations

from bench.gate.change_shapes import added_parameters, changed_expectations, literals_only_changed, newly_valued

CACHE_BEFORE = '''class Cache:
    def expire(self, time=None):
        """Remove expired items."""
        for key in self.old(time):
            del self[key]

    def get(self, key):
        """Return the value of key."""
        self.lookup(key)

    def keys(self):
        for key in self.data:
            yield key
'''
CACHE_AFTER = '''class Cache:
    def expire(self, time=None):
        """Remove expired items and return them."""
        gone = [(key, self[key]) for key in self.old(time)]
        for key, _ in gone:
            del self[key]
        return gone

    def get(self, key):
        """Return the value of key."""
        return self.lookup(key)

    def keys(self):
        for key in self.data:
            yield key
        return None
'''


def test_a_function_that_returned_nothing_and_promised_nothing_gains_a_value():
    # get() promised a value and forgot it (a bug); keys() is a generator; neither counts
    assert newly_valued((("c.py", CACHE_BEFORE),), (("c.py", CACHE_AFTER),)) == {"expire"}


def test_parameters_gained_by_existing_public_functions():
    before = "def lines(f, size=4096):\n    pass\n\n\ndef _helper(a):\n    pass\n"
    after = ("def lines(f, size=4096, encoding=None, *, strict=False):\n    pass\n\n\n"
             "def _helper(a, extra):\n    pass\n\n\ndef fresh(x, brand_new):\n    pass\n")
    # a private function's and a new function's parameters are not gained by an existing public one
    assert added_parameters((("m.py", before),), (("m.py", after),)) == {"encoding", "strict"}


TABLE_BEFORE = 'def test_wiki():\n    expected = "\\n".join([\'! a !! align="right"| b\', "|}"])\n    assert render() == expected\n'
TABLE_AFTER = TABLE_BEFORE.replace('align="right"', 'style="text-align: right;"')
GROWN = 'def test_wiki():\n    expected = "\\n".join([\'! a !! align="right"| b\', "|}"])\n    assert render() == expected\n    assert render(1) == expected\n'


def test_a_test_rewritten_in_its_literals_alone_is_a_changed_expectation():
    assert literals_only_changed(TABLE_BEFORE, TABLE_AFTER)
    assert not literals_only_changed(TABLE_BEFORE, TABLE_BEFORE)  # untouched
    assert not literals_only_changed(TABLE_BEFORE, GROWN)  # a new assertion: structure changed
    old = {"t.py::test_wiki": TABLE_BEFORE, "t.py::test_grown": TABLE_BEFORE}
    new = {"t.py::test_wiki": TABLE_AFTER, "t.py::test_grown": GROWN, "t.py::test_new": TABLE_AFTER}
    assert changed_expectations(old, new) == ("t.py::test_wiki",)
