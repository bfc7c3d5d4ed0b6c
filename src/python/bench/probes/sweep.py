"""The sweep of :mod:`bench.probes.generate`: calls that change one place of an observed call to a value chosen,
not drawn."""

from __future__ import annotations

import json

from bench.probes.runs import written_text
from bench.probes.strategies import Seeds

MAX_CALLS = 48  # observed calls the sweep starts from (as many as generation's draws start from)


def swept(observed, seeds: Seeds, limit: int, seen: set, first: int) -> list:
    """Calls that change one place of an observed call to a value chosen, not drawn: a list handed over as an
    iterator of its items, a number set to each of the code's own constants (an int with its neighbours, a
    float also negated). Where a wrong fix hides is often one exact value (a weekday of 6, ``-1e-9``, a clock
    at the expiry) or the iterator a sequence-only rewrite cannot take; a random draw meets it by luck. Taken
    round-robin over the observed calls, so each gets a share."""
    per_call = []
    for args, kwargs in observed[:MAX_CALLS]:
        positional = json.loads(args)[1]
        per_place = [[(written_text(["l", positional[:i] + [value] + positional[i + 1:]]), kwargs)
                      for value in _chosen_values(item, seeds)]
                     for i, item in enumerate(positional[first:], first)]
        per_call.append(_interleaved(per_place))
    found: list = []
    for call in _interleaved(per_call):
        if len(found) == limit:
            break
        if call not in seen:
            seen.add(call)
            found.append(call)
    return found


def _interleaved(lists: list[list]) -> list:
    """The first of each list, then the second of each, and so on."""
    return [item for round_ in range(max(map(len, lists), default=0)) for item in
            (chosen[round_] for chosen in lists if round_ < len(chosen))]


def _chosen_values(item, seeds: Seeds) -> list:
    if item[0] == "l":
        return [["it", item[1]]]
    if item[0] == "i":
        return [["i", str(v)] for v in seeds.ints if str(v) != item[1]]
    if item[0] == "f":
        return [["f", repr(float(v))] for v in (*seeds.floats, *seeds.ints[:16]) if repr(float(v)) != item[1]]
    return []
