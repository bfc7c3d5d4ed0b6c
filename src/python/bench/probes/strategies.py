"""Strategies of written values (the codec's tagged form, ``bench.probes._probe_codec``) shaped like an observed
one, for :mod:`bench.probes.generate`: an int around its value (its neighbours first), a float within its
magnitude, the whole numbers near it and the code's own float constants, a str or bytes over the characters it and its neighbours use, a list,
tuple or dict by one element drawn anew (the shape kept) or all of them, a bool also turned over, a set one
element dropped, added or drawn anew, an empty list, tuple or dict also one or two plain values, an object of a class statement one attribute drawn anew, a live argument
at an in-place site one of its own attributes; ``None``, references and other objects stay as they were."""

from __future__ import annotations

from dataclasses import dataclass

from bench.probes.runs import written_text

MAX_TEXT = 160
MAX_POINTS = 32  # elements of a list, tuple or dict one of which is drawn anew


@dataclass(frozen=True)
class Seeds:
    """What generation draws from besides the observed value: the characters of the observed calls, and the
    constants the target's own code holds (a boundary is usually written there: ``0x660 <= cp``, ``[2:4]``,
    ``== "--"``), each int with its neighbours."""

    alphabet: str
    ints: tuple[int, ...] = ()
    strings: tuple[str, ...] = ()
    floats: tuple[float, ...] = ()  # the code's float constants, each also negated (``kelvin < -1e-9``)
    bytes_: tuple[bytes, ...] = ()  # the code's short bytes literals (a protocol's ``b"\r\n"``)
    text_numbers: tuple[int, ...] = ()  # numbers a text may spell: the code's and its module's ints


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
        near = sorted({value - 1.0, value + 1.0, float(round(value))} | {float(i) for i in seeds.ints[:16]}
                      | set(seeds.floats[:16]))
        return st.one_of(st.just(value), st.floats(-span, span, allow_nan=False, allow_infinity=False),
                         st.sampled_from(near)).map(lambda v: ["f", repr(v)])
    if tag == "b" and isinstance(encoded[1], bool):
        return st.sampled_from((encoded, ["b", not encoded[1]]))
    if tag == "s":
        return texts_around(encoded[1], seeds).map(lambda v: ["s", v])
    if tag in ("y", "Y"):
        data = bytes.fromhex(encoded[1])
        size = min(MAX_TEXT, len(encoded[1]) // 2 + 3)
        options = [st.just(data), st.binary(max_size=size)]
        if seeds.bytes_:  # the code's own delimiters, alone and put in at each place (at the start too)
            literals = st.sampled_from(seeds.bytes_)
            options += [literals, st.tuples(st.integers(0, len(data)), literals).map(
                lambda v: data[:v[0]] + v[1] + data[v[0]:])]
        return st.one_of(*options).map(lambda v: [tag, v.hex()])
    # A container's parts are made once and used by both of its branches (all drawn anew, one drawn anew):
    # made twice at every level, a value nested ten deep cost 2 ** 10 times its size, minutes for one call.
    if tag == "l" and encoded[1]:
        parts = [strategy_for(x, seeds) for x in encoded[1][:MAX_POINTS]]
        elements = st.one_of(*parts[:8])
        size = len(encoded[1])
        lists = st.lists(elements, min_size=max(0, size - 2), max_size=size + 2).map(lambda v: ["l", v])
        options = [_one_changed(encoded, parts), lists, st.just(["l", []])]
        if size > 2:  # its first one or two elements: the input that runs out early (an incomplete game)
            options.append(st.sampled_from((1, 2)).map(lambda k: ["l", encoded[1][:k]]))
        return st.one_of(*options)
    if tag == "t" and encoded[1]:
        parts = [strategy_for(x, seeds) for x in encoded[1]]
        whole = st.tuples(*parts).map(lambda v: ["t", list(v)])
        return st.one_of(_one_changed(encoded, parts), whole)
    if tag == "d" and encoded[1]:
        parts = [strategy_for(v, seeds) for _, v in encoded[1]]
        values = [part.map(lambda x, k=k: [k, x]) for part, (k, _) in zip(parts, encoded[1])]
        return st.one_of(_one_changed(encoded, parts), st.tuples(*values).map(lambda v: ["d", list(v)]),
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
    if tag in ("l", "t", "d") and not encoded[1]:
        # an empty container the tests always pass empty (``kwargs={}``) also holds one or two plain values
        return st.one_of(st.just(encoded), _filled(tag, seeds))
    if tag == "td" and len(encoded) == 4:
        return st.sampled_from([encoded, *timedeltas_around(encoded)])
    if tag == "~" and len(encoded) > 1 and encoded[1]:
        # a live argument at an in-place site (bench.probes.in_place): one of its own attributes set anew
        drawn = [(k, v) for k, v in encoded[1][:MAX_POINTS] if v[0] != "~cut"]  # a live list: the sweep cuts it
        if drawn:
            return st.one_of(*[strategy_for(v, seeds).map(lambda x, k=k: ["~", [[k, x]]]) for k, v in drawn])
    return st.just(encoded)


def _filled(tag: str, seeds: Seeds):
    """A list, tuple or dict of one or two values made of what the call and the code hold: a short str over
    their characters, or one of the code's ints (a dict keyed by such a str)."""
    from hypothesis import strategies as st

    names = st.text(st.sampled_from(seeds.alphabet), min_size=1, max_size=6)
    values = st.one_of(names.map(lambda v: ["s", v]),
                       st.sampled_from(seeds.ints or (0, 1, 2)).map(lambda v: ["i", str(v)]))
    if tag == "d":
        return st.lists(st.tuples(names, values), min_size=1, max_size=2, unique_by=lambda kv: kv[0]).map(
            lambda v: ["d", [[["s", k], x] for k, x in v]])
    return st.lists(values, min_size=1, max_size=2).map(lambda v: [tag, v])


def _one_dropped(encoded):
    """The same dict without one of its keys: an optional key missing, the shape just short of what was seen."""
    from hypothesis import strategies as st

    items = encoded[1][:MAX_POINTS]
    return st.integers(0, len(items) - 1).map(lambda i: ["d", [x for j, x in enumerate(encoded[1]) if j != i]])


def _one_changed(encoded, parts):
    """The same list, tuple or dict with one element (a dict: one value) drawn anew and the rest as they were:
    the shape a function checks (a 9 × 9 grid, a record of fixed fields) is kept, and the one change is where
    a boundary is found. ``parts``: the strategies of its elements (values), in order."""
    from hypothesis import strategies as st

    tag, items = encoded[0], encoded[1][:MAX_POINTS]
    if tag == "d":
        points = [part.map(lambda x, i=i, k=k: (i, [k, x])) for i, (part, (k, _)) in enumerate(zip(parts, items))]
    else:
        points = [part.map(lambda x, i=i: (i, x)) for i, (part, _) in enumerate(zip(parts, items))]

    def put(change):
        index, value = change
        return [tag, [value if i == index else item for i, item in enumerate(encoded[1])]]

    return st.one_of(*points).map(put)


def texts_around(text: str, seeds: Seeds):
    """Strings around ``text``: itself, its characters at lengths around its own (boundaries of length live
    there), one character deleted, doubled, replaced or inserted (from the seeds' alphabet), the code's own
    literals alone or spliced in, and free text over the alphabet."""
    from hypothesis import strategies as st

    size = min(MAX_TEXT, 2 * len(text) + 3)
    chars = st.sampled_from(seeds.alphabet)
    own = st.sampled_from(sorted(set(text))) if text else chars
    at = st.integers(0, len(text))
    options = [
        st.just(text), st.text(chars, max_size=size), st.text(own, min_size=min(size, max(0, len(text) - 2)), max_size=size),
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


def timedeltas_around(item) -> list:
    """A written timedelta made zero, turned negative and a minute longer: an offset or a step compared with
    another of the same name, or of the same length; [] for anything else."""
    import datetime

    if item[0] != "td" or len(item) != 4:
        return []
    held = datetime.timedelta(days=item[1], seconds=item[2], microseconds=item[3])
    try:
        values = (datetime.timedelta(0), -held, held + datetime.timedelta(minutes=1))
    except OverflowError:  # the least or the greatest timedelta
        values = (datetime.timedelta(0),)
    found = []
    for value in values:
        written = ["td", value.days, value.seconds, value.microseconds]
        if value != held and written not in found:
            found.append(written)
    return found
