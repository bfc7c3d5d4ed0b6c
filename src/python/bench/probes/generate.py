"""Inputs around the observed ones, generated with Hypothesis: seeded, bounded, derandomised.

Each observed call gives a strategy of calls of the same shape (:func:`strategy_for` works on the written form of
``bench.probes._probe_codec``): an int varies around its value (its neighbours first), a float within its
magnitude, a str or bytes over the characters it and its neighbours use (and a few more), a list, tuple or dict
by one element drawn anew (the shape kept) or all of them (a list also in length); ``None``, booleans, objects, references and the first argument of a method
(``self``, ``cls``) stay as they were, so every generated call is one the function is built to take. The draws
are Hypothesis's own (``derandomize=True``, no database, generate phase only): the same observed calls give the
same generated calls on every machine with the same Hypothesis, which the lock pins.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Sequence

from bench import pyast
from bench.probes.runs import written_text

MAX_PER_TARGET = 120  # generated calls per target
MAX_EXAMPLES_PER_TARGET = 150  # draws tried per target (duplicates of observed calls are dropped)
MAX_TEXT = 160
MAX_SEEDS = 48  # observed calls a target's generation starts from, spread evenly over them
MAX_POINTS = 32  # elements of a list, tuple or dict one of which is drawn anew
EXTRA_CHARS = " -_.0aZ9é/"


@dataclass(frozen=True)
class Seeds:
    """What generation draws from besides the observed value: the characters of the observed calls, and the
    constants the target's own code holds (a boundary is usually written there: ``0x660 <= cp``, ``[2:4]``,
    ``== "--"``), each int with its neighbours."""

    alphabet: str
    ints: tuple[int, ...] = ()
    strings: tuple[str, ...] = ()


def strategy_for(encoded, seeds: Seeds):
    """A strategy of written values shaped like ``encoded``."""
    from hypothesis import strategies as st

    tag = encoded[0]
    if tag == "i":
        value = int(encoded[1])
        span = max(8, min(abs(value), 1 << 40))
        options = [st.just(value), st.sampled_from((value - 1, value + 1)), st.integers(value - span, value + span),
                   st.integers(-2, 2)]
        if seeds.ints:
            options.append(st.sampled_from(seeds.ints))
        return st.one_of(*options).map(lambda v: ["i", str(v)])
    if tag == "f":
        value = float(encoded[1])
        if value != value or value in (float("inf"), float("-inf")):
            return st.just(encoded)
        span = max(1.0, abs(value) * 2)
        return st.one_of(st.just(value), st.floats(-span, span, allow_nan=False, allow_infinity=False)).map(
            lambda v: ["f", repr(v)])
    if tag == "s":
        return _texts(encoded[1], seeds).map(lambda v: ["s", v])
    if tag in ("y", "Y"):
        size = min(MAX_TEXT, len(encoded[1]) // 2 + 3)
        return st.one_of(st.just(bytes.fromhex(encoded[1])), st.binary(max_size=size)).map(lambda v: [tag, v.hex()])
    if tag == "l" and encoded[1]:
        elements = st.one_of(*[strategy_for(x, seeds) for x in encoded[1][:8]])
        size = len(encoded[1])
        lists = st.lists(elements, min_size=max(0, size - 2), max_size=size + 2).map(lambda v: ["l", v])
        return st.one_of(_one_changed(encoded, seeds), lists)
    if tag == "t" and encoded[1]:
        whole = st.tuples(*[strategy_for(x, seeds) for x in encoded[1]]).map(lambda v: ["t", list(v)])
        return st.one_of(_one_changed(encoded, seeds), whole)
    if tag == "d" and encoded[1]:
        values = [strategy_for(v, seeds).map(lambda x, k=k: [k, x]) for k, v in encoded[1]]
        return st.one_of(_one_changed(encoded, seeds), st.tuples(*values).map(lambda v: ["d", list(v)]))
    return st.just(encoded)


def _one_changed(encoded, seeds: Seeds):
    """The same list, tuple or dict with one element (a dict: one value) drawn anew and the rest as they were:
    the shape a function checks (a 9 × 9 grid, a record of fixed fields) is kept, and the one change is where
    a boundary is found."""
    from hypothesis import strategies as st

    tag, items = encoded[0], encoded[1][:MAX_POINTS]
    if tag == "d":
        points = [strategy_for(v, seeds).map(lambda x, i=i, k=k: (i, [k, x])) for i, (k, v) in enumerate(items)]
    else:
        points = [strategy_for(x, seeds).map(lambda x, i=i: (i, x)) for i, x in enumerate(items)]

    def put(change):
        index, value = change
        return [tag, [value if i == index else item for i, item in enumerate(encoded[1])]]

    return st.one_of(*points).map(put)


def _texts(text: str, seeds: Seeds):
    """Strings around ``text``: itself, its characters at lengths around its own (boundaries of length live
    there), one character deleted, doubled, replaced or inserted (from the seeds' alphabet), the code's own
    literals alone or spliced in, and free text over the alphabet."""
    from hypothesis import strategies as st

    size = min(MAX_TEXT, 2 * len(text) + 3)
    chars = st.sampled_from(seeds.alphabet)
    own = st.sampled_from(sorted(set(text))) if text else chars
    at = st.integers(0, len(text))
    options = [
        st.just(text), st.text(chars, max_size=size), st.text(own, min_size=max(0, len(text) - 2), max_size=size),
        at.map(lambda i: text[:i] + text[i + 1:]), at.map(lambda i: text[:i] + text[i - 1:i] + text[i:]),
        st.tuples(at, chars).map(lambda v: text[:v[0]] + v[1] + text[v[0] + 1:]),
        st.tuples(at, chars).map(lambda v: text[:v[0]] + v[1] + text[v[0]:]),
    ]
    if seeds.strings:
        literals = st.sampled_from(seeds.strings)
        # where the code slices or indexes, a literal it compares with is put there: ``label[2:4] == "--"``
        places = sorted({i for i in seeds.ints if 0 <= i <= len(text)} | {0, len(text)})
        spot = st.sampled_from(places)
        options += [literals, st.tuples(at, literals).map(lambda v: text[:v[0]] + v[1] + text[v[0]:]),
                    st.tuples(spot, literals).map(lambda v: text[:v[0]] + v[1] + text[v[0] + len(v[1]):]),
                    st.tuples(spot, literals).map(lambda v: text[:v[0]] + v[1] + text[v[0]:])]
    return st.one_of(*options)


def constants_of(source: str, qualname: str) -> tuple[tuple[int, ...], tuple[str, ...]]:
    """The int constants (and their neighbours) and short str literals of one function of ``source``."""
    import ast

    try:
        tree = pyast.parse(source)
    except SyntaxError:
        return (), ()
    node = _function(tree.body, qualname.split("."))
    if node is None:
        return (), ()
    ints, strings = set(), set()
    for item in ast.walk(node):
        if isinstance(item, ast.Constant):
            if isinstance(item.value, int) and not isinstance(item.value, bool) and abs(item.value) < 1 << 62:
                ints.update((item.value - 1, item.value, item.value + 1))
            elif isinstance(item.value, str) and 0 < len(item.value) <= 24 and item is not _docstring(node):
                strings.add(item.value)
    return tuple(sorted(ints))[:64], tuple(sorted(strings))[:64]


def _function(body, path):
    import ast

    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name == path[0]:
            return node if len(path) == 1 else _function(node.body, path[1:])
    return None


def _docstring(node):
    import ast

    first = node.body[0] if getattr(node, "body", None) else None
    return first.value if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) else None


def alphabet_of(calls: Sequence[str], ints: Sequence[int] = (), strings: Sequence[str] = ()) -> str:
    """Every character of every str the observed calls and the code's literals hold, the characters the code's
    int constants name (a code point range's bounds and neighbours), and a few more, in a stable order."""
    chars: set[str] = set(EXTRA_CHARS)
    for literal in strings:
        chars.update(literal)
    chars.update(chr(i) for i in ints if 0x20 <= i < 0x110000 and not 0xD800 <= i < 0xE000)

    def walk(e) -> None:
        if isinstance(e, list) and e:
            if e[0] == "s" and isinstance(e[1], str):
                chars.update(e[1][:256])
            for item in e[1:]:
                walk(item)

    for call in calls:
        walk(json.loads(call))
    return "".join(sorted(chars))


def generate(observed: Sequence[tuple[str, str]], *, method: bool, source: str = "", qualname: str = "",
             limit: int = MAX_PER_TARGET) -> list[tuple[str, str]]:
    """New (args, kwargs) calls of one target, from its observed ones (written form, JSON text) and the
    constants of its code (``source``, the reference's text of its module); a method's first argument is never
    varied."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import strategies as st

    if not observed:
        return []
    _without_local_constants()
    ints, strings = constants_of(source, qualname) if source else ((), ())
    seeds = Seeds(alphabet_of([a for a, _ in observed] + [k for _, k in observed], ints, strings), ints, strings)

    def call_strategy(args: str, kwargs: str):
        positional, named = json.loads(args)[1], json.loads(kwargs)
        fixed = positional[:1] if method else []
        varied = positional[1:] if method else positional
        parts = [st.just(x) for x in fixed] + [strategy_for(x, seeds) for x in varied]
        return st.tuples(st.tuples(*parts), strategy_for(named, seeds)).map(
            lambda v: (written_text(["l", list(v[0])]), written_text(v[1])))

    # Each seed call gets its own share of draws, in a run of its own: one run over a choice among all of them
    # would favour the first (Hypothesis prefers the simpler choice), and the tests' late, unusual calls (a
    # googol, an empty input) are often the ones a wrong fix special-cases.
    step = max(1, -(-len(observed) // MAX_SEEDS))
    chosen = observed[::step]
    share, tries = -(-limit // len(chosen)), max(4, -(-MAX_EXAMPLES_PER_TARGET // len(chosen)))
    seen, found = set(observed), []
    for args, kwargs in chosen:
        mine: list = []

        @settings(database=None, derandomize=True, max_examples=tries, phases=[Phase.generate], deadline=None,
                  suppress_health_check=list(HealthCheck))
        @given(call_strategy(args, kwargs))
        def collect(call):
            if call not in seen and len(mine) < share:
                seen.add(call)
                mine.append(call)

        collect()
        found += mine
    return found[:limit]


def _without_local_constants() -> None:
    """Hypothesis mixes into its draws constants it finds in the non-library modules loaded in the process (the
    harness's own, a test's), so what it draws would depend on what else this process imported: turned off, for
    the same draws everywhere. (Private to Hypothesis, whose version the lock pins; the constants of the target's
    own code come in through :class:`Seeds` instead.)"""
    from hypothesis.internal.conjecture import providers

    if getattr(providers, "_get_local_constants", None) is not _no_local_constants and hasattr(providers, "Constants"):
        providers._get_local_constants = _no_local_constants
        providers.CONSTANTS_CACHE.cache.clear()


def _no_local_constants():
    from hypothesis.internal.conjecture import providers

    return providers.Constants()
