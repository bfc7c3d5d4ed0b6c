"""Two numbers of one observed call made equal, a lane of the sweep (:mod:`bench.probes.sweep`).

Where a wrong fix hides is often the one point where two of its numbers meet: a clock read at the very expiry it
set (``now < expiry`` against ``now <= expiry``), a start equal to an end, an index equal to a length. The
tests pass numbers beside each other; a random draw meets equality by luck. So each number the call holds (in
its arguments, inside their lists, dicts and objects, and in a live argument's own attributes, the clock object
a cache keeps included) is set to each other number of the same type the call holds. Numbers of one type only:
an int place given a float is a type change, which other lanes ask.
"""

from __future__ import annotations

import json

from bench.probes.relations import joined_call, places_of
from bench.probes.runs import written_text

MAX_NUMBERS = 8  # distinct numbers of one type a call's places are set to, in the order met
MAX_PLACES = 16  # number places of one call changed, in the order met

PLACE = ("equal",)  # the sweep's place of this lane: one lane, its changes its values (one slot a round)


def equal_number_changes(args: str, kwargs: str):
    """(place, value, call) for each change of the observed call ``(args, kwargs)`` that sets one number it holds
    to another number of the same type it holds."""
    positional, named = json.loads(args)[1], json.loads(kwargs)
    places = places_of(positional, named, ("i", "f"))[:MAX_PLACES]
    numbers: dict[str, list[str]] = {"i": [], "f": []}
    for _, _, atom in places:
        held = numbers[atom[0]]
        if atom[1] not in held and len(held) < MAX_NUMBERS:
            held.append(atom[1])
    for place in places:
        root, path, atom = place
        for number in numbers[atom[0]]:
            if number != atom[1]:
                value = [atom[0], number]
                yield PLACE, written_text([root, path, value]), joined_call(positional, named, place, value)
