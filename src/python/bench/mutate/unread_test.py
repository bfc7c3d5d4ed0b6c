"""A name left unread: the three omissions a reading found by it, and the idioms that must not count."""

from __future__ import annotations

import ast
import textwrap

import pytest

from bench.mutate.anomalies import added_anomaly
from bench.mutate.unread import unread_names


def _added(before: str, after: str) -> str:
    before = textwrap.dedent(before)
    after = textwrap.dedent(after)
    # the whole file replaced: added_anomaly compares the two trees
    return added_anomaly(before.encode(), 0, len(before.encode()), after)


@pytest.mark.parametrize(("before", "after"), [
    # a parameter thrown away before it is read
    ("def build(body, scope=None):\n    scope = scope or {}\n    exec(body, scope)\n    return scope\n",
     "def build(body, scope=None):\n    scope = {}\n    exec(body, scope)\n    return scope\n"),
    # a type dropped from an isinstance tuple leaves its import unused
    ("from collections.abc import Sequence, Mapping\n\ndef nth(n, seq):\n"
     "    if isinstance(seq, (tuple, list, Sequence)):\n        return seq[n]\n    return dict(seq) if isinstance(seq, Mapping) else None\n",
     "from collections.abc import Sequence, Mapping\n\ndef nth(n, seq):\n"
     "    if isinstance(seq, (tuple, list)):\n        return seq[n]\n    return dict(seq) if isinstance(seq, Mapping) else None\n"),
    # an f-string without its f leaves the text it was to show unread
    ("def call(name, args):\n    text = ', '.join(args)\n    if text:\n        text += '.'\n    return f'{name}({text})'\n",
     "def call(name, args):\n    text = ', '.join(args)\n    if text:\n        text += '.'\n    return '{name}({text})'\n"),
])
def test_an_omission_that_leaves_a_name_unread_is_an_anomaly(before, after):
    before, after = textwrap.dedent(before), textwrap.dedent(after)
    assert unread_names(ast.parse(after)) == unread_names(ast.parse(before)) + 1
    assert _added(before, after) != ""  # refused (by this rule, or one checked before it)


@pytest.mark.parametrize("source", [
    "def f(self, _unused, *args, **kwargs):\n    return args, kwargs\n",  # self and _-names are not counted
    "def f(x):\n    pass\n",  # a stub reads nothing on purpose
    "def f(x):\n    raise NotImplementedError\n",
    "from __future__ import annotations\nimport os\n__all__ = ['os']\n",  # re-exported by name
    "import os.path\n\ndef f():\n    return os.path.sep\n",
    "def f(xs):\n    total = 0\n    for x in xs:\n        total += x\n    return total\n",
    "def f(x):\n    if x:\n        x = 1\n    return x\n",  # overwritten only on one path: read first
    "def outer():\n    value = 1\n    def inner():\n        return value\n    return inner\n",  # read by a closure
])
def test_idioms_count_nothing(source):
    assert unread_names(ast.parse(source)) == 0


def test_each_kind_is_counted_once():
    source = ("import os\nimport sys\n\ndef f(a, b, c):\n    a = 1\n    unused = 2\n    return a + b + len(sys.argv)\n")
    assert unread_names(ast.parse(source)) == 4  # os, unused, a (overwritten), c (never read)
