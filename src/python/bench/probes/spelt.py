"""Numbers a text spells, set by the sweep (:mod:`bench.probes.sweep`) to bounds the target's module holds near
them: a parser's bound met by its input where the tests spelt a number just beside it."""

from __future__ import annotations

import json
import re

from bench.probes.runs import written_text
from bench.probes.strategies import Seeds


# a number a text spells: four hex digits after ``\\u``, two after ``\\x``, hex digits after ``0x``, or decimal digits
_SPELT = re.compile(r"(?<=\\u)[0-9a-fA-F]{4}|(?<=\\x)[0-9a-fA-F]{2}|(?<=0[xX])[0-9a-fA-F]+|[0-9]+")
MAX_SPELT = 4  # numbers of one text the sweep sets, from its first
NEAR = 0.1  # a spelt number is set to the code's numbers within this share of it (or 2 of it)


def spelt_changes(args: str, kwargs: str, seeds: Seeds, first: int):
    """(place, value, call, how far it moved) for each text of the observed call, at the top of a positional
    or named place, with one number it spells set to a number of the code near it. These make a lane of
    their own in the sweep's turns, the nearest first: every text with digits gives several, and a bound
    the tests spelt just beside (``"\\ud83d"`` where the code holds ``0xDC00``) would wait behind them all."""
    positional, named = json.loads(args)[1], json.loads(kwargs)
    for i, item in enumerate(positional[first:], first):
        if item[0] == "s":
            for moved, value in _numbers_spelt(item[1], seeds):
                changed = positional[:i] + [value] + positional[i + 1:]
                yield ("spelt", i), written_text(value), (written_text(["l", changed]), kwargs), moved
    for i, (key, item) in enumerate(named[1]):
        if key[0] == "s" and item[0] == "s":
            for moved, value in _numbers_spelt(item[1], seeds):
                yield ("spelt", key[1]), written_text(value), (
                    args, written_text(["d", named[1][:i] + [[key, value]] + named[1][i + 1:]])), moved


def _numbers_spelt(text: str, seeds: Seeds) -> list:
    """(how far it moved, the text) with one number it spells set to a number of the code and its module near
    it, written as that one was (a width of hex digits kept, its case too): a parser's bound met by its input
    (``"\\udbff"`` where the tests wrote ``"\\ud83d"``)."""
    found = []
    for match in list(_SPELT.finditer(text))[:MAX_SPELT]:
        digits, start, end = match.group(), match.start(), match.end()
        before = text[max(0, start - 2):start]
        hexadecimal = before in ("\\u", "\\x", "0x", "0X")
        spelt_number = int(digits, 16 if hexadecimal else 10)
        for number in seeds.text_numbers:
            moved = abs(number - spelt_number)
            if number == spelt_number or moved > max(2, NEAR * spelt_number):
                continue
            spelt = format(number, "X" if digits.isupper() and not digits.isdigit() else "x") if hexadecimal \
                else str(number)
            if before in ("\\u", "\\x"):
                spelt = spelt.zfill(len(digits))
                if len(spelt) != len(digits):
                    continue
            found.append((moved / max(1, spelt_number), ["s", text[:start] + spelt + text[end:]]))
    return found
