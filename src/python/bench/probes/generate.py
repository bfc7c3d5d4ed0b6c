"""Inputs around the observed ones, generated with Hypothesis: seeded, bounded, derandomised.

Each observed call gives a strategy of calls of the same shape (:func:`strategy_for` works on the written form of
``bench.probes._probe_codec``): an int varies around its value (its neighbours first), a float within its
magnitude, a str or bytes over the characters it and its neighbours use (and a few more), a list, tuple or dict
by one element drawn anew (the shape kept) or all of them (a list also in length); ``None``, booleans, objects, references and the first argument of a method
(``self``, ``cls``) stay as they were, so every generated call is one the function is built to take. An object
of a class statement has one attribute drawn anew; a set one element dropped, added or drawn anew. At an
in-place site (:mod:`bench.probes.in_place`) a live argument, ``self`` included, carries the attributes of its
own that could be written, and one of them is drawn anew (set in the forked child before the call). The draws
are Hypothesis's own (``derandomize=True``, no database, generate phase only): the same observed calls give the
same generated calls on every machine with the same Hypothesis, which the lock pins.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Sequence

from bench import pyast
from bench.probes.runs import written_text

MAX_PER_TARGET = 200  # generated calls per target
RENAMED_SHARE = 5  # one in this many of them renames a str wherever the call holds it
MAX_EXAMPLES_PER_TARGET = 600  # draws tried per target (duplicates of observed calls are dropped)
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
        # whole numbers near it and the code's own constants too: a boundary (an expiry, a limit) is met exactly
        near = sorted({value - 1.0, value + 1.0, float(round(value))} | {float(i) for i in seeds.ints[:16]})
        return st.one_of(st.just(value), st.floats(-span, span, allow_nan=False, allow_infinity=False),
                         st.sampled_from(near)).map(lambda v: ["f", repr(v)])
    if tag == "s":
        return _texts(encoded[1], seeds).map(lambda v: ["s", v])
    if tag in ("y", "Y"):
        size = min(MAX_TEXT, len(encoded[1]) // 2 + 3)
        return st.one_of(st.just(bytes.fromhex(encoded[1])), st.binary(max_size=size)).map(lambda v: [tag, v.hex()])
    if tag == "l" and encoded[1]:
        elements = st.one_of(*[strategy_for(x, seeds) for x in encoded[1][:8]])
        size = len(encoded[1])
        lists = st.lists(elements, min_size=max(0, size - 2), max_size=size + 2).map(lambda v: ["l", v])
        return st.one_of(_one_changed(encoded, seeds), lists, st.just(["l", []]))
    if tag == "t" and encoded[1]:
        whole = st.tuples(*[strategy_for(x, seeds) for x in encoded[1]]).map(lambda v: ["t", list(v)])
        return st.one_of(_one_changed(encoded, seeds), whole)
    if tag == "d" and encoded[1]:
        values = [strategy_for(v, seeds).map(lambda x, k=k: [k, x]) for k, v in encoded[1]]
        return st.one_of(_one_changed(encoded, seeds), st.tuples(*values).map(lambda v: ["d", list(v)]),
                         _one_dropped(encoded), st.just(["d", []]))
    if tag in ("S", "F") and encoded[1]:
        # a set keeps its size but for one element dropped, added or drawn anew (sorted as the codec sorts)
        elements = st.one_of(*[strategy_for(x, seeds) for x in encoded[1][:8]])
        size = len(encoded[1])
        return st.one_of(st.lists(elements, min_size=max(0, size - 1), max_size=size + 1).map(
            lambda v: [tag, sorted({written_text(x): x for x in v}.values(), key=written_text)]), st.just([tag, []]))
    if tag == "o" and encoded[2]:  # an object of a class statement: one attribute drawn anew
        points = [strategy_for(v, seeds).map(lambda x, i=i: (i, x)) for i, (_, v) in enumerate(encoded[2][:MAX_POINTS])]
        return st.one_of(st.just(encoded), st.one_of(*points).map(
            lambda c: ["o", encoded[1], [[k, c[1] if i == c[0] else v] for i, (k, v) in enumerate(encoded[2])]]))
    if tag == "~" and len(encoded) > 1 and encoded[1]:
        # a live argument at an in-place site (bench.probes.in_place): one of its own attributes set anew
        return st.one_of(*[strategy_for(v, seeds).map(lambda x, k=k: ["~", [[k, x]]])
                           for k, v in encoded[1][:MAX_POINTS]])
    return st.just(encoded)


def _one_dropped(encoded):
    """The same dict without one of its keys: an optional key missing, the shape just short of what was seen."""
    from hypothesis import strategies as st

    items = encoded[1][:MAX_POINTS]
    return st.integers(0, len(items) - 1).map(lambda i: ["d", [x for j, x in enumerate(encoded[1]) if j != i]])


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
    from hypothesis import strategies as st

    if not observed:
        return []
    _without_local_constants()
    ints, strings = constants_of(source, qualname) if source else ((), ())
    seeds = Seeds(alphabet_of([a for a, _ in observed] + [k for _, k in observed], ints, strings), ints, strings)

    positions, by_name = defaults_of(source, qualname) if source else ((), {})

    def call_strategy(args: str, kwargs: str):
        positional, named = json.loads(args)[1], json.loads(kwargs)
        keep_self = method and positional[:1] and not _has_own_attributes(positional[0])
        parts = [st.just(x) if keep_self and i == 0 else _or_default(strategy_for(x, seeds), positions, i)
                 for i, x in enumerate(positional)]
        keyword = strategy_for(named, seeds)
        defaulted = [(i, by_name[k[1]]) for i, (k, _) in enumerate(named[1]) if k[0] == "s" and k[1] in by_name]
        if defaulted:  # one named argument given its default: the value the function is built to take
            keyword = st.one_of(keyword, st.sampled_from(defaulted).map(
                lambda c: ["d", [[k, c[1] if i == c[0] else v] for i, (k, v) in enumerate(named[1])]]))
        return st.tuples(st.tuples(*parts), keyword).map(
            lambda v: (written_text(["l", list(v[0])]), written_text(v[1])))

    def rename_strategy(args: str, kwargs: str):
        """One str renamed wherever the call holds it (a key, a name, an element of an option): the relations
        between the arguments are kept, the value the tests used is not. None when the call holds no str."""
        positional, named = json.loads(args)[1], json.loads(kwargs)
        texts = _strings_in([positional, named])
        if not texts:
            return None
        renamed = st.sampled_from(texts).flatmap(
            lambda old: _texts(old, seeds).filter(lambda new: new != old).map(lambda new: (old, new)))
        return renamed.map(lambda c: _rename_call(positional, named, *c))

    seen = set(observed)
    renames = max(2, limit // RENAMED_SHARE) if limit >= 4 else 0
    found = _collect(observed, call_strategy, limit - renames, seen)
    found += _collect(observed, rename_strategy, renames, seen)
    return found[:limit]


def _collect(observed, strategy_of, limit: int, seen: set) -> list:
    """Up to ``limit`` new calls drawn from ``strategy_of(args, kwargs)`` around the observed calls."""
    from hypothesis import HealthCheck, Phase, given, settings

    if limit <= 0:
        return []
    # Each seed call gets its own share of draws, in a run of its own: one run over a choice among all of them
    # would favour the first (Hypothesis prefers the simpler choice), and the tests' late, unusual calls (a
    # googol, an empty input) are often the ones a wrong fix special-cases.
    step = max(1, -(-len(observed) // MAX_SEEDS))
    chosen = observed[::step]
    draws = min(MAX_EXAMPLES_PER_TARGET, 4 * limit)  # duplicates are dropped: a few draws per call kept
    share, tries = -(-limit // len(chosen)), max(4, -(-draws // len(chosen)))
    found: list = []
    for args, kwargs in chosen:
        strategy = strategy_of(args, kwargs)
        if strategy is None:
            continue
        mine: list = []

        @settings(database=None, derandomize=True, max_examples=tries, phases=[Phase.generate], deadline=None,
                  suppress_health_check=list(HealthCheck))
        @given(strategy)
        def collect(call):
            if call not in seen and len(mine) < share:
                seen.add(call)
                mine.append(call)

        collect()
        found += mine
    return found[:limit]


def defaults_of(source: str, qualname: str) -> tuple[tuple, dict]:
    """The literal defaults of one function's parameters (None, a bool, a number, a short str), written: by
    position (``None`` where a parameter has none) and by name. An optional parameter's default is a value the
    function is built to take, and its ``is None`` branch is where a wrong variable hides."""
    try:
        node = _function(pyast.parse(source).body, qualname.split("."))
    except SyntaxError:
        node = None
    if node is None:
        return (), {}
    spec = node.args
    ordered = spec.posonlyargs + spec.args
    pairs = list(zip(ordered[len(ordered) - len(spec.defaults):], spec.defaults))
    pairs += [(a, d) for a, d in zip(spec.kwonlyargs, spec.kw_defaults) if d is not None]
    written = {a.arg: _literal(d) for a, d in pairs}
    written = {name: value for name, value in written.items() if value is not None}
    return tuple(written.get(a.arg) for a in ordered), written


def _literal(node):
    import ast

    if not isinstance(node, ast.Constant):
        return None
    value = node.value
    if value is None:
        return ["N"]
    if isinstance(value, bool):
        return ["b", value]
    if isinstance(value, int):
        return ["i", str(value)]
    if isinstance(value, float):
        return ["f", repr(value)]
    if isinstance(value, str) and len(value) <= MAX_TEXT:
        return ["s", value]
    return None


def _or_default(strategy, positions, index):
    from hypothesis import strategies as st

    default = positions[index] if index < len(positions) else None
    return strategy if default is None else st.one_of(strategy, st.just(default))


def _strings_in(encoded) -> list[str]:
    """Every str the written values hold more than once (dict keys and live arguments' own attributes
    included), sorted: a relation between arguments (a key and the option naming it) that renaming keeps, where
    a str held once is varied anyway."""
    found: dict[str, int] = {}

    def walk(e) -> None:
        if isinstance(e, list) and e:
            if e[0] == "s" and len(e) == 2 and isinstance(e[1], str):
                found[e[1]] = found.get(e[1], 0) + 1
                return
            if e[0] == "~":  # a live argument: its attributes' values, not their names
                for _, value in e[1] if len(e) > 1 else ():
                    walk(value)
                return
            for item in e:
                walk(item)

    walk(encoded)
    return sorted(t for t, count in found.items() if count > 1 and len(t) <= MAX_TEXT)


def _rename_call(positional, named, old: str, new: str) -> tuple[str, str]:
    """The call with every str equal to ``old`` made ``new``; a live argument carries just the attributes the
    renaming changed (set in the child before the call)."""

    def rename(e):
        if isinstance(e, list) and e:
            if e[0] == "s" and len(e) == 2 and e[1] == old:
                return ["s", new]
            return [rename(x) for x in e]
        return e

    args = []
    for item in positional:
        if item[0] == "~":
            changed = [[name, rename(value)] for name, value in (item[1] if len(item) > 1 else ())
                       if rename(value) != value]
            args.append(["~", changed] if changed else ["~"])
        else:
            args.append(rename(item))
    return written_text(["l", args]), written_text(rename(named))


def _has_own_attributes(encoded) -> bool:
    """A live ``self`` at an in-place site that carries attributes to vary."""
    return encoded[0] == "~" and len(encoded) > 1 and bool(encoded[1])


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
