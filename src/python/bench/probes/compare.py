"""Comparing a replay's outputs with the reference's, on the host, and saying where they part.

An output is what ``_probe_runtime`` wrote for one input: ``["return", value, args after, kwargs after]``,
``["raise", exception, …]`` or a failure to answer (``timeout``, ``unavailable``, ``unbuildable``,
``unserialisable``). Two outputs agree when they are the same kind and:

- for a return, the values and the arguments after the call (what the call changed in them) are equal, where a
  float equals another within a relative 1e-9 (NaN equals NaN), a dict, a set or an object's attributes are
  compared without regard to order, and everything else exactly, type included;
- for a raise, the exception is the same: its class and its arguments (the message says which check failed:
  ``"must not start or end with a hyphen"`` and ``"disallowed hyphens in 3rd and 4th position"`` are the same
  class). What the arguments hold after a raise is not compared;
- either way, what the call printed to stdout and stderr is the same (``["printed", out, err, lengths]`` after
  the arguments, left out where it printed nothing; a warning as its category and message, without the file
  and line a fix moves).

Where the reference itself answers one input differently from run to run in some values only (a cache key
carrying ``hash()`` of a type, an id, a timestamp inside an otherwise fixed result), :func:`masked` keeps the
answer with those values replaced by :data:`WILDCARD`, which any value matches: the rest is still checked.
"""

from __future__ import annotations

import json
import math

from bench.probes._probe_calls import DREW as DRAWN

REL_TOL = 1e-9
ABS_TOL = 1e-12
SHOWN = 240  # characters of an input or output shown in a divergence


def agree(expected: str, got: str) -> bool:
    if not got:
        return False
    if got == expected:  # the same canonical text: nothing to compare
        return True
    want, have = with_printed(json.loads(expected)), with_printed(json.loads(got))
    if len(have) == 6 and have[5] == DRAWN:
        # the candidate drew on the random module's generator where the reference did not (the reference's
        # probes that draw are never kept): what it gave is compared all the same
        have = have[:5]
    if want[0] != have[0]:
        return False
    if want[0] == "raise":  # the exception (class, arguments) and what it printed, not what it left in the arguments
        return len(have) == 5 and equal(want[1], have[1]) and equal(want[4], have[4])
    if want[0] == "return":
        return len(have) == 5 and all(equal(a, b) for a, b in zip(want[1:], have[1:]))
    return want == have


NOTHING_PRINTED = ["printed", "", "", 0, 0]


def with_printed(answer: list) -> list:
    """A returned or raised answer with its printed element in place (:data:`NOTHING_PRINTED` where the call
    printed nothing, which is left out when written): the two are compared alike whether or not either printed."""
    if answer and answer[0] in ("return", "raise") and len(answer) >= 4 and (
            len(answer) == 4 or answer[4] == DRAWN):
        return answer[:4] + [NOTHING_PRINTED] + answer[4:]
    return answer


WILDCARD = ["*"]  # in an expected output only: a value the reference answers differently from run to run
_POSITIONAL = ("l", "t", "x")  # tagged containers compared place by place
_KEYED = {"d": 1, "od": 1, "ct": 1, "dd": 2, "o": 2, "?": 2, "u": 3}  # pairs [key, value] at this index


def masked(first: str, second: str) -> str:
    """``first`` with every value where ``second`` differs from it replaced by :data:`WILDCARD` (the canonical
    text); "" when the two differ in kind or in the value returned or raised as a whole (nothing left to
    check). Keys, names and lengths are never masked: where they differ the whole container is."""
    a, b = with_printed(json.loads(first)), with_printed(json.loads(second))
    if a[0] != b[0] or a[0] not in ("return", "raise") or len(a) != len(b):
        return ""
    out = [a[0], *(_mask(x, y) for x, y in zip(a[1:], b[1:]))]
    if out[1] == WILDCARD:
        return ""
    if out[4] == NOTHING_PRINTED:
        del out[4]
    return json.dumps(out, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def _mask(x, y):
    if x == y:
        return x
    if not (isinstance(x, list) and isinstance(y, list) and x and y and x[0] == y[0] and len(x) == len(y)):
        return WILDCARD
    tag = x[0]
    if tag in _POSITIONAL:
        where = 2 if tag == "x" else 1
        if x[:where] == y[:where] and len(x[where]) == len(y[where]):
            return [*x[:where], [_mask(p, q) for p, q in zip(x[where], y[where])], *x[where + 1:]]
    elif tag in _KEYED and len(x) > _KEYED[tag]:
        where = _KEYED[tag]
        fixed = 2 if tag == "u" else where  # ["u", name, base, attributes]: the base value is masked too
        if x[:fixed] == y[:fixed] and [k for k, _ in x[where]] == [k for k, _ in y[where]]:
            pairs = [[k, _mask(v, w)] for (k, v), (_, w) in zip(x[where], y[where])]
            return [*x[:fixed], *(_mask(x[2], y[2]) for _ in range(tag == "u")), pairs]
    return WILDCARD


def equal(a, b) -> bool:
    if a == WILDCARD:
        return True
    if not isinstance(a, list) or not isinstance(b, list) or not a or not b or a[0] != b[0]:
        return a == b
    tag = a[0]
    if tag == "f":
        return _floats(float(a[1]), float(b[1]))
    if tag == "c":
        return _floats(float(a[1]), float(b[1])) and _floats(float(a[2]), float(b[2]))
    if tag in ("l", "t"):
        return len(a[1]) == len(b[1]) and all(equal(x, y) for x, y in zip(a[1], b[1]))
    if tag == "d":
        return _pairs(a[1], b[1])
    if tag == "o":
        return a[1] == b[1] and _pairs(a[2], b[2])
    if tag == "u":
        return a[1] == b[1] and equal(a[2], b[2]) and _pairs(a[3], b[3])
    if tag == "?":  # an argument written by its type and the attributes of its own that can be written
        return a[1] == b[1] and len(a) == len(b) and (len(a) < 3 or _pairs(a[2], b[2]))
    if tag == "x":
        return a[1] == b[1] and len(a[2]) == len(b[2]) and all(equal(x, y) for x, y in zip(a[2], b[2]))
    return a == b  # atoms, sets (sorted by their written form), references, enums, dates


def _floats(x: float, y: float) -> bool:
    if math.isnan(x) or math.isnan(y):
        return math.isnan(x) and math.isnan(y)
    return x == y or math.isclose(x, y, rel_tol=REL_TOL, abs_tol=ABS_TOL)


def _pairs(left, right) -> bool:
    if len(left) != len(right):
        return False
    key = lambda pair: json.dumps(pair[0], sort_keys=True)  # noqa: E731
    return all(json.dumps(x[0], sort_keys=True) == json.dumps(y[0], sort_keys=True) and equal(x[1], y[1])
               for x, y in zip(sorted(left, key=key), sorted(right, key=key)))


def render(encoded, limit: int = SHOWN) -> str:
    """A written value as Python-like text for people (never parsed back)."""
    text = _render(encoded)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _render(e) -> str:  # noqa: C901 - one branch per tag, flat
    if not isinstance(e, list) or not e:
        return repr(e)
    tag = e[0]
    if tag == "N":
        return "None"
    if tag == "b":
        return repr(e[1])
    if tag in ("i", "f"):
        return e[1]
    if tag == "c":
        return f"complex({e[1]}, {e[2]})"
    if tag == "s":
        return repr(e[1])
    if tag == "z":
        return repr(bytes.fromhex(e[1]).decode("utf-8", "surrogatepass"))
    if tag in ("y", "Y"):
        return repr(bytes.fromhex(e[1])) if tag == "y" else f"bytearray({bytes.fromhex(e[1])!r})"
    if tag == "l":
        return "[" + ", ".join(_render(x) for x in e[1]) + "]"
    if tag == "t":
        return "(" + ", ".join(_render(x) for x in e[1]) + ("," if len(e[1]) == 1 else "") + ")"
    if tag == "it":
        return "iter([" + ", ".join(_render(x) for x in e[1]) + "])"
    if tag == "d":
        return "{" + ", ".join(f"{_render(k)}: {_render(v)}" for k, v in e[1]) + "}"
    if tag in ("S", "F"):
        inner = "{" + ", ".join(_render(x) for x in e[1]) + "}" if e[1] else "()"
        return inner if tag == "S" and e[1] else ("set()" if tag == "S" else f"frozenset({inner})")
    if tag == "o":
        return _short(e[1]) + "(" + ", ".join(f"{k}={_render(v)}" for k, v in e[2]) + ")"
    if tag == "u":
        return _short(e[1]) + "(" + _render(e[2]) + ")"
    if tag == "x":
        return _short(e[1]) + "(" + ", ".join(_render(x) for x in e[2]) + ")"
    if tag == "e":
        return f"{_short(e[1])}.{e[2]}"
    if tag == "R":
        return _short(e[1].lstrip("~"))
    if tag == "g":
        return _short(e[1])
    if tag == "unset":
        return "<unset>"
    if tag == "*":
        return "<varies>"
    if tag == "~":
        changed = ", ".join(f"{_render(k)[1:-1]}={_render(v)}" for k, v in e[1]) if len(e) > 1 else ""
        return f"<as the test passed it, with {changed}>" if changed else "<as the test passed it>"
    if tag == "?":
        return f"<a {_short(e[1])}>"
    return f"{tag}({', '.join(str(x) for x in e[1:])})"


def _short(name: str) -> str:
    return name.partition(":")[2] or name


def render_output(output: str) -> str:
    """An output as people read it: the value returned, the exception raised, or why there was none."""
    if not output:
        return "no answer (the replay stopped before this input)"
    item = with_printed(json.loads(output))
    if item[0] not in ("return", "raise"):
        return " ".join(str(x) for x in item)
    said = render(item[1]) if item[0] == "return" else "raises " + render(item[1])
    _, out, err, *_ = item[4] if item[4] != WILDCARD else NOTHING_PRINTED
    printed = [f"{name} {render(['s', text])}" for name, text in (("prints", out), ("writes to stderr", err)) if text]
    return "; ".join([said, *printed])


def render_call(qualname: str, args: str, kwargs: str) -> str:
    positional = [_render(a) for a in json.loads(args)[1]]
    named = [f"{_render(k)[1:-1]}={_render(v)}" for k, v in json.loads(kwargs)[1]]
    text = f"{qualname}({', '.join(positional + named)})"
    return text if len(text) <= SHOWN else text[: SHOWN - 1] + "…"
