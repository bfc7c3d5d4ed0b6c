"""Inputs around the observed ones, generated with Hypothesis: seeded, bounded, derandomised.

Each observed call gives a strategy of calls of the same shape (:func:`strategy_for` works on the written form of
``bench.probes._probe_codec``): an int varies around its value (its neighbours first), a float within its
magnitude, a str or bytes over the characters it and its neighbours use (and a few more), a list, tuple or dict
by one element drawn anew (the shape kept) or all of them (a list also in length), a bool also turned over (a flag
the tests always pass one way hides a branch); ``None``, objects, references and the first argument of a method
(``self``, ``cls``) stay as they were, so every generated call is one the function is built to take. An object
of a class statement has one attribute drawn anew; a set one element dropped, added or drawn anew. At an
in-place site (:mod:`bench.probes.in_place`) a live argument, ``self`` included, carries the attributes of its
own that could be written, and one of them is drawn anew (set in the forked child before the call). Calls
also take, in one place, a value the target's other observed calls put there (a ``None`` the tests of one
schema left is met by the set another test gave), rename a str wherever the call holds it, or make one str (or
None) equal to another str the call holds (a dict key included): the duplicate a function checks for. Half the
draws vary one place alone, the rest of the call as observed; an option the call leaves at its literal default
is given another value by name; a method's argument also takes an object another call was made on. Besides the
draws, a sweep sets one place of each observed call to values chosen, not drawn: a list handed over as an
iterator of its items, a number set to each of the code's own constants (a weekday of 6, ``-1e-9``). The draws
are Hypothesis's own (``derandomize=True``, no database, generate phase only): the same observed calls give the
same generated calls on every machine with the same Hypothesis, which the lock pins.
"""

from __future__ import annotations

import json
from typing import Sequence

from bench import pyast
from bench.probes.own_code import (
    annotated_types_of, bytes_constants_of, checked_types_of, constants_of, defaults_of, float_constants_of,
    memo_attributes_of, parameters_of, text_numbers_of,
)
from bench.probes.relations import (joined_call, named_elsewhere, omitted_options, or_elsewhere, places_of,
                                    renamed_call, slot_values, strings_in, with_selves)
from bench.probes.runs import written_text
from bench.probes.strategies import Seeds, strategy_for, texts_around
from bench.probes.sweep import Typed
from bench.probes.sweep import swept as swept_calls
from bench.probes.whole_call import whole_changes

MAX_PER_TARGET = 200  # generated calls per target
RENAMED_SHARE = 5  # one in this many renames a str wherever the call holds it, as many join two places
SWEEP_SHARE = 3  # at most one in this many sets one place to a value chosen (bench.probes.sweep), for a target
MAX_EXAMPLES_PER_TARGET = 600  # draws tried per target (duplicates of observed calls are dropped)
MAX_SEEDS = 48  # observed calls a target's generation starts from, spread evenly over them
MAX_WHOLE_CALLS = 4  # observed calls changed whole (bench.probes.whole_call), besides the limit: a few, no share
EXTRA_CHARS = " -_.0aZ9é/"


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
             limit: int = MAX_PER_TARGET, elsewhere: Sequence[tuple[str, str]] = (),
             turn: int = 0, sweep_share: int = SWEEP_SHARE, kin: Sequence[tuple[str, str]] = ()
             ) -> list[tuple[str, str]]:
    """New (args, kwargs) calls of one target, from its observed ones (written form, JSON text), the values
    its other observed calls (``elsewhere``) put in the same places, and the constants of its code
    (``source``, the reference's text of its module); a method's first argument is never varied. ``turn``
    numbers the calls of one target generated around one at a time (in-place sites): the sweep of the n-th
    goes on where the one before left off, so fifteen sites ask fifteen shares of its questions, not one. The
    sweep takes at most one in ``sweep_share`` of the calls; what it leaves goes to the draws. ``kin`` are the
    observed calls of the other targets of the same file, whose values the sweep also sets (same type, same
    place). A few observed calls changed whole (:data:`MAX_WHOLE_CALLS`) come besides ``limit``: in its share
    they took the places of draws that had found other wrong fixes."""
    # Hypothesis parses source of its own (a lambda's, to describe a strategy): one generation at a time in this
    # process, so a probe set built on one worker thread never breaks a parse on another (bench.pyast).
    with pyast.exclusive():
        return _generate(observed, method=method, source=source, qualname=qualname, limit=limit,
                         elsewhere=elsewhere, turn=turn, sweep_share=sweep_share, kin=kin)


def _generate(observed, *, method: bool, source: str, qualname: str, limit: int, elsewhere,
              turn: int, sweep_share: int, kin) -> list[tuple[str, str]]:
    from hypothesis import strategies as st

    if not observed:
        return []
    _without_local_constants()
    ints, strings = constants_of(source, qualname) if source else ((), ())
    seeds = Seeds(alphabet_of([a for a, _ in observed] + [k for _, k in observed], ints, strings), ints, strings,
                  float_constants_of(source, qualname) if source else (),
                  bytes_constants_of(source, qualname) if source else (),
                  text_numbers_of(source, qualname) if source else ())

    positions, by_name = defaults_of(source, qualname) if source else ((), {})
    parameters = parameters_of(source, qualname) if source else ((), 0)
    pool = slot_values(list(observed) + list(elsewhere))

    def call_strategy(args: str, kwargs: str):
        positional, named = json.loads(args)[1], json.loads(kwargs)
        keep_self = method and positional[:1] and not _has_own_attributes(positional[0])
        # another call's value in one place of a call of one place is just that other call: nothing new
        combined = len(positional) + len(named[1]) > 1 or positional and _has_own_attributes(positional[0])
        others = pool if combined else {}
        parts = [st.just(x) if keep_self and i == 0 else
                 _or_default(or_elsewhere(strategy_for(x, seeds), x, with_selves(others, i) if method else others,
                                          i), positions, i)
                 for i, x in enumerate(positional)]
        # the named arguments are varied, never made up (an empty ``**kwargs`` stays empty)
        keyword = named_elsewhere(strategy_for(named, seeds) if named[1] else st.just(named), named, others)
        defaulted = [(i, by_name[k[1]]) for i, (k, _) in enumerate(named[1]) if k[0] == "s" and k[1] in by_name]
        if defaulted:  # one named argument given its default: the value the function is built to take
            keyword = st.one_of(keyword, st.sampled_from(defaulted).map(
                lambda c: ["d", [[k, c[1] if i == c[0] else v] for i, (k, v) in enumerate(named[1])]]))
        given = omitted_options(parameters, by_name, len(positional), named, seeds, pool)
        if given is not None:  # an option the call leaves at its default, given another value by name
            keyword = st.one_of(keyword, given)
        return _one_place_or_all(positional, named, parts, keyword, 1 if keep_self else 0).map(
            lambda v: (written_text(["l", list(v[0])]), written_text(v[1])))

    def rename_strategy(args: str, kwargs: str):
        """One str renamed wherever the call holds it (a key, a name, an element of an option): the relations
        between the arguments are kept, the value the tests used is not. None when the call holds no str."""
        positional, named = json.loads(args)[1], json.loads(kwargs)
        texts = strings_in([positional, named])
        if not texts:
            return None
        renamed = st.sampled_from(texts).flatmap(
            lambda old: texts_around(old, seeds).filter(lambda new: new != old).map(lambda new: (old, new)))
        return renamed.map(lambda c: renamed_call(positional, named, *c))

    def collision_strategy(args: str, kwargs: str):
        """One str (or None) of the call made equal to another str it holds (a dict key included): the
        duplicate a function checks for. None when the call holds no two places to join."""
        positional, named = json.loads(args)[1], json.loads(kwargs)
        texts = sorted(set(strings_in([positional, named], at_least=1)))
        places = places_of(positional, named)
        if not texts or not places:
            return None
        # a draw that changes nothing is the observed call again, which collecting drops
        return st.tuples(st.sampled_from(places), st.sampled_from(texts)).map(
            lambda c: joined_call(positional, named, c[0], ["s", c[1]]))

    seen = set(observed)
    share = max(2, limit // RENAMED_SHARE) if limit >= 4 else 0
    typed = Typed(types_of(source, qualname), *parameters, memo_attributes_of(source, qualname)) if source else None
    swept_share = max(share, limit // sweep_share)
    swept = swept_calls(observed, seeds, swept_share, seen, first=1 if method else 0, typed=typed,
                        start=turn * swept_share, kin=slot_values(kin))
    renamed = _collect(observed, rename_strategy, share, seen)
    joined = _collect(observed, collision_strategy, share, seen)
    # what the sweep, renaming and joining did not use goes to the calls varied value by value
    found = _collect(observed, call_strategy, limit - len(swept) - len(renamed) - len(joined), seen)
    return (found + swept + renamed + joined)[:limit] + _wholes(observed, seen, first=1 if method else 0)


def _wholes(observed, seen: set, first: int) -> list:
    """The whole-call changes (:mod:`bench.probes.whole_call`) of the first observed calls, not met before."""
    found = []
    for args, kwargs in observed[:MAX_WHOLE_CALLS]:
        for _, _, call in whole_changes(args, kwargs, first):
            if call not in seen:
                seen.add(call)
                found.append(call)
    return found


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


def _or_default(strategy, positions, index):
    from hypothesis import strategies as st

    default = positions[index] if index < len(positions) else None
    return strategy if default is None else st.one_of(strategy, st.just(default))
def _one_place_or_all(positional, named, parts, keyword, first: int):
    """Half the draws vary every place of the call at once, half one place alone (a position, or the named
    arguments) with the rest as observed: a boundary (a weekday of 6) is met inside a call that is otherwise
    one the tests made, not beside another change that sends the call down an error path first."""
    from hypothesis import strategies as st

    every = st.tuples(st.tuples(*parts), keyword)
    kept = [st.just(x) for x in positional]
    alone = [st.tuples(st.tuples(*kept[:i], parts[i], *kept[i + 1:]), st.just(named))
             for i in range(first, len(positional))]
    alone.append(st.tuples(st.tuples(*kept), keyword))
    return st.one_of(every, st.one_of(*alone))


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


def types_of(source: str, qualname: str) -> dict[str, tuple[str, ...]]:
    """The types each parameter is checked against in the code, then those its annotation names."""
    checked, annotated = checked_types_of(source, qualname), annotated_types_of(source, qualname)
    return {name: tuple(dict.fromkeys(checked.get(name, ()) + annotated.get(name, ())))
            for name in {**checked, **annotated}}
