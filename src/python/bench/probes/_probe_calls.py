"""What the probe runtime does at one call, inside the sandbox: name a call as a site, call a target with an
input and write what it gave. Standard library only; copied beside ``_probe_runtime.py``, which imports it."""

import itertools
import json
import os
import random
import types

_ITERATORS = (types.GeneratorType,)
MAX_ITEMS = 1000  # items taken from a generator a target returns
# The module-level generator behind random.choice, shuffle, sample…, bound when this file is imported (before any
# code of the work dir): a call that moves its state drew on it, and what it gave is not a function of its input.
_RANDOM, _RANDOM_STATE = random._inst, random.Random.getstate
DREW = "random"  # the fifth element of an answer whose call drew on that generator


class _Timeout(BaseException):
    pass


SITE_CALLS = 200  # calls of one target in one test that can be sites; later ones are neither named nor counted
# attributes of a live argument written with its site, its public ones first: click's Option has forty, and
# its ``show_envvar`` came after the first 24 in name order, so no probe ever turned it over
OWN_ATTRIBUTES = 48
OWN_ATTRIBUTE_TEXT = 2000  # characters of one written attribute, at most


def _own_attributes(value, encode):
    """``[[name, written], …]``: the attributes in the instance dict of ``value`` that can be written, by name."""
    try:
        held = object.__getattribute__(value, "__dict__")
    except Exception:  # noqa: BLE001 - no instance dict: nothing to vary
        return []
    if type(held) is not dict:
        return []
    found = []
    names = sorted((k for k in dict.keys(held) if type(k) is str), key=lambda k: (k.startswith("_"), k))
    for name in names[:4 * OWN_ATTRIBUTES]:
        try:
            written = encode(dict.__getitem__(held, name))
        except Exception:  # noqa: BLE001 - an attribute that cannot be written stays as it is
            continue
        if len(json.dumps(written)) <= OWN_ATTRIBUTE_TEXT:
            found.append([["s", name], written])
        if len(found) >= OWN_ATTRIBUTES:
            break
    return found


def _site_of(index, qualname, args, kwargs, encode, calls, occurrences, own=True):
    """``[test, mark, occurrence, args, kwargs]`` naming this call as a site, or None outside a test or past
    :data:`SITE_CALLS`. Every call is counted alike in recording and in place, whether it is probed or not.
    Without ``own`` the live arguments' own attributes are left out of ``args`` and ``kwargs`` (the mark does
    not hold them): writing them is most of the cost where ``self`` is a large object, and only a site that is
    written needs them (:func:`_template` again)."""
    test = os.environ.get("PYTEST_CURRENT_TEST", "")
    here = calls[(index, test)] = calls.get((index, test), 0) + 1
    if not test or here > SITE_CALLS:
        return None
    args_t, kwargs_t, mark = _template(args, kwargs, encode, "." in qualname, own)
    key = (index, test, mark)
    occurrences[key] = occurrences.get(key, 0) + 1
    return [test, mark, occurrences[key], args_t, kwargs_t]


def _template(args, kwargs, encode, method, own=True):
    """The written form of a call whose arguments cannot all be written: each argument written, or ``["~"]``
    (taken live at the site) where it cannot be, and for a method its ``self`` always; a live argument also
    carries the attributes of its own that can be written (``["~", [[name, value], …]]``), which an input may
    set anew in the child before the call. And the call's mark, a sha256 of what could be written of each
    argument and the type of the rest."""
    import hashlib

    def one(value, live):
        if not live:
            try:
                return encode(value), None
            except Exception:  # noqa: BLE001 - taken live at the site
                pass
        kind = type(value)
        held = _own_attributes(value, encode) if own else []
        return (["~", held] if held else ["~"]), kind.__module__ + ":" + kind.__qualname__

    args_t, kwargs_t, marks = [], [], []
    for position, value in enumerate(args):
        written, kind = one(value, method and position == 0)
        args_t.append(written)
        marks.append(kind or written)
    for name in sorted(kwargs):
        written, kind = one(kwargs[name], False)
        kwargs_t.append([["s", name], written])
        marks.append([name, kind or written])
    mark = hashlib.sha256(json.dumps(marks, sort_keys=True).encode()).hexdigest()[:16]
    return ["l", args_t], ["d", kwargs_t], mark


def _site_waited(child, progress, count, seconds):
    """Wait for the child answering a site's ``count`` inputs in turn: ``(answered, why)``. The child writes
    one byte to ``progress`` after each answer; one that gives none for longer than a call's time is killed.
    ``why`` is what the input it stopped at gets: "" when it ended cleanly (all answered, or it stopped after
    a call that timed out), ``timeout`` when it was killed, ``crashed`` when it died in the middle of a call
    (a signal, or an exit from the target's own code)."""
    import select
    import signal

    answered, killed = 0, False
    waiting = select.poll()  # not select(): a test process may hold descriptors past FD_SETSIZE
    waiting.register(progress, select.POLLIN)
    while True:
        if not waiting.poll((seconds + 1.0) * 1000):
            os.kill(child, signal.SIGKILL)
            killed = True
            break
        got = os.read(progress, 64)
        answered += len(got)
        # every end closed (the child is gone), or all answered: a process the target started may hold the pipe
        if not got or answered >= count:
            break
    os.close(progress)
    _, status = os.waitpid(child, 0)
    if killed:
        return min(answered, count), "timeout"
    return min(answered, count), "" if os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0 else "crashed"


def _live_call(function, args, kwargs, args_t, kwargs_t, decode, loose, seconds):
    """Call ``function`` with the site's live arguments, each one the input writes replaced by its value. A
    ``["~self", attributes]`` place is given a twin of the live first argument: an object of its class holding
    its own attributes (shallow), some set anew, made by its ``__new__`` alone (no ``__init__``) — the other side
    of a comparison that the tests only ever gave None or a str."""
    def live(value, item):
        for name, written in item[1] if len(item) > 1 else ():
            object.__setattr__(value, decode(name), decode(written))
        return value

    def twin(item):
        original = args[0]
        made = type(original).__new__(type(original))  # its own ``__new__``: a tzinfo refuses object's
        object.__getattribute__(made, "__dict__").update(object.__getattribute__(original, "__dict__"))
        return live(made, item)

    def one(i, item):
        if item[0] == "~":
            return live(args[i], item)
        return twin(item) if item[0] == "~self" else decode(item)

    try:
        new_args = [one(i, item) for i, item in enumerate(args_t[1])]
        new_kwargs = {decode(k): live(kwargs[decode(k)], item) if item[0] == "~" else decode(item)
                      for k, item in kwargs_t[1]}
    except BaseException as exc:  # noqa: BLE001
        return ["unbuildable", type(exc).__name__, str(exc)[:200]]
    return _answer(function, new_args, new_kwargs, loose, seconds)


def _after_a_draw(answer, earlier_drew: bool):
    """``answer`` marked :data:`DREW` when an earlier call at its in-place site drew on the generator: the live
    arguments it was given hold what that call left, which may be what the draw chose (``set_style(RANDOM)``
    picks a table's borders at random; a later ``set_style(MARKDOWN)`` keeps some of them). Two runs of the
    reference can agree on such a value by chance, and a candidate's run draw another."""
    if earlier_drew and answer[0] in ("return", "raise") and answer[-1] != DREW:
        return answer + [DREW]
    return answer


class _Yielded(list):
    """What a generator or iterator returned by a target yielded (written as a list of the same name)."""


def _answer(function, args, kwargs, loose, seconds):
    """Call ``function`` and write what it gave: ``[kind, value or exception, args after, kwargs after]`` (both
    empty after a raise), with a fifth element :data:`DREW` when the call moved the random module's generator,
    or why there is no answer (``timeout``, ``unserialisable``). A value that cannot be written whole (a compiled
    pattern, an object holding a bound method) is written as ``["?", its type, the attributes of its own that
    can be written]``: compared by those, where it would otherwise drop the whole answer."""
    import signal

    state = _RANDOM_STATE(_RANDOM)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        result = function(*args, **kwargs)
        if type(result) in _ITERATORS or type(result).__module__ == "builtins" and hasattr(type(result), "__next__"):
            items = list(itertools.islice(result, MAX_ITEMS + 1))  # what it yields is what it returns
            result = _Yielded(items) if len(items) <= MAX_ITEMS else result
        outcome = ["return", result]
    except _Timeout:
        return ["timeout"]
    except BaseException as exc:  # noqa: BLE001 - what it raises is part of what it does
        outcome = ["raise", exc]
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    drew = [DREW] if _RANDOM_STATE(_RANDOM) != state else []

    def otherwise(value):
        kind = type(value)
        return ["?", kind.__module__ + ":" + kind.__qualname__, _own_attributes(value, loose)]

    returned = outcome[0] == "return"
    try:
        # What a call that raised left in its arguments is never compared (compare.agree), so it is not
        # written: on click's parsers that was a third of what the in-place run wrote.
        left, names = (list(args), sorted(kwargs)) if returned else ([], [])
        written = loose.together([outcome[1], *left, *(kwargs[k] for k in names)], otherwise)
        args_after, kwargs_after = written[1:1 + len(left)], written[1 + len(left):]
        return [outcome[0], written[0], ["l", args_after],
                ["d", [[["s", k], v] for k, v in zip(names, kwargs_after)]]] + drew
    except BaseException as exc:  # noqa: BLE001
        return ["unserialisable", outcome[0], type(exc).__name__]
