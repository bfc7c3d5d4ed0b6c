"""What the probe runtime does at one call, inside the sandbox: name a call as a site, call a target with an
input and write what it gave. Standard library only; copied beside ``_probe_runtime.py``, which imports it."""

import _thread
import itertools
import json
import os
import random
import sys
import types

_ITERATORS = (types.GeneratorType,)
_GENERATOR_CONTEXTS = ("_GeneratorContextManager",)
MAX_ITEMS = 1000  # items taken from a generator a target returns
# The module-level generator behind random.choice, shuffle, sample…, bound when this file is imported (before any
# code of the work dir): a call that moves its state drew on it, and what it gave is not a function of its input.
_RANDOM, _RANDOM_STATE = random._inst, random.Random.getstate
DREW = "random"  # the last element of an answer whose call drew on that generator
MAX_PRINTED = 4000  # characters of what a call printed to each stream, kept with the whole's length


class _Timeout(BaseException):
    pass


SITE_CALLS = 200  # calls of one target in one test that can be sites; later ones are neither named nor counted
# attributes of a live argument written with its site, its public ones first: click's Option has forty, and
# its ``show_envvar`` came after the first 24 in name order, so no probe ever turned it over
OWN_ATTRIBUTES = 48
OWN_ATTRIBUTE_TEXT = 2000  # characters of one written attribute, at most


def _is_local(value) -> bool:
    """Whether ``value`` is a ``threading.local``, whose attributes object's own access neither finds nor sets."""
    return _thread._local in type.__getattribute__(type(value), "__mro__")


def _setter(value):
    return _thread._local.__setattr__ if _is_local(value) else object.__setattr__


# (id of the object, name) -> (the object, kept alive so that its id is never another's; its list as the site
# had it before the first cut)
_UNCUT: dict = {}


def _cut(value, name, written):
    """``value``'s own list ``name`` cut to ``written``'s ``[start, stop]``: emptied, one of its items alone (a
    hook with no implementations, or with only its ``tryfirst`` one). Always cut from the list as the site had
    it: an input after a cut would otherwise cut what the earlier one left (its one item, or nothing)."""
    whole = _UNCUT.setdefault((id(value), name), (value, dict(_own_values(value)).get(name)))[1]
    if type(whole) is not list:
        raise TypeError(f"{name} is not a list of its own")
    return list.__getitem__(whole, slice(written[1], written[2]))


def _own_values(value) -> list:
    """``[(name, value), …]``: what ``value`` holds in its instance dict (a thread's own, for a
    ``threading.local``) and in the slots its classes declare (pluggy's ``HookCaller`` has no dict)."""
    found = []
    try:
        held = (_thread._local if _is_local(value) else object).__getattribute__(value, "__dict__")
    except Exception:  # noqa: BLE001 - no instance dict
        held = None
    if type(held) is dict:
        found += [(k, dict.__getitem__(held, k)) for k in dict.keys(held) if type(k) is str]
    for cls in type.__getattribute__(type(value), "__mro__"):
        slots = type.__getattribute__(cls, "__dict__").get("__slots__", ())
        for name in (slots,) if type(slots) is str else slots:
            if type(name) is str and name not in ("__dict__", "__weakref__"):
                try:
                    found.append((name, object.__getattribute__(value, name)))
                except Exception:  # noqa: BLE001 - a slot not set
                    pass
    return found


def _own_attributes(value, encode):
    """``[[name, written], …]``: the attributes of ``value``'s own (:func:`_own_values`) that can be written, by
    name, public ones first."""
    found = []
    own = sorted(_own_values(value), key=lambda pair: (pair[0].startswith("_"), pair[0]))
    for name, value_held in own[:4 * OWN_ATTRIBUTES]:
        try:
            written = encode(value_held)
        except Exception:  # noqa: BLE001 - an attribute that cannot be written stays as it is
            written = None
        if written is None or len(json.dumps(written)) > OWN_ATTRIBUTE_TEXT:
            if type(value_held) is not list or not list.__len__(value_held):
                continue
            # a list of what cannot be written whole (pluggy's hook implementations): named by its length, so
            # an input can cut it in the sandbox (``["~cut", start, stop]``) without ever writing its items
            written = ["~cut", 0, list.__len__(value_held)]
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
        put = _setter(value)
        for name, written in item[1] if len(item) > 1 else ():
            key = decode(name)
            put(value, key, _cut(value, key, written) if written[0] == "~cut" else decode(written))
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


class _YieldedFirst(list):
    """The first :data:`MAX_ITEMS` items of a generator a target returned that yields more, an endless one too
    (``daterange(start, None, step)``): compared on those, where the whole answer would be dropped."""


class _Entered(list):
    """What a ``@contextmanager`` function a target is gave when entered, as ``[value]``, and left at once: its
    body runs only then, so the object it returns says nothing of what it does."""


def _consumed(result):
    """What a call's ``result`` is compared by: a generator by what it yields, a context manager made by
    ``contextlib.contextmanager`` by what it gives when entered (then left as a ``with`` block that raised
    nothing leaves it)."""
    kind = type(result)
    if kind in _ITERATORS or kind.__module__ == "builtins" and hasattr(kind, "__next__"):
        items = list(itertools.islice(result, MAX_ITEMS + 1))  # what it yields is what it returns
        return _Yielded(items) if len(items) <= MAX_ITEMS else _YieldedFirst(items[:MAX_ITEMS])
    if kind.__module__ == "contextlib" and kind.__name__ in _GENERATOR_CONTEXTS:
        entered = _Entered([result.__enter__()])
        result.__exit__(None, None, None)
        return entered
    return result


def _fixed_system_bytes():
    """Make ``os.urandom`` (and the ``random`` module's copy, behind ``SystemRandom`` and ``secrets``) give the
    same bytes at every probe call, from the call's start; return the two it replaced. A multipart body's
    boundary, a ``uuid4`` and a token differed at every run of the reference, so the whole value holding one was
    masked and never compared (requests' ``_encode_files``: every file part it wrote). The candidate's run of
    the same call gets the same bytes; a fix drawing more or fewer of them than the reference where its answer
    shows them diverges."""
    fixed = random.Random(0)
    replaced = os.urandom, getattr(random, "_urandom", os.urandom)
    os.urandom = random._urandom = fixed.randbytes
    return replaced


class _Printed:
    """What a call writes to ``sys.stdout`` and ``sys.stderr``, a warning shown as its category and message
    alone (the file and line a fix moves are left out): an answer element ``["printed", out, err, length of
    out, length of err]`` where either holds something. click's commands tell of a deprecated option on
    stderr and return nothing, and no answer held it."""

    def __enter__(self):
        import io
        import warnings

        self.saved = sys.stdout, sys.stderr, warnings.showwarning
        sys.stdout, sys.stderr = self.out, self.err = io.StringIO(), io.StringIO()
        warnings.showwarning = lambda message, category, *_, **__: self.err.write(
            f"{category.__name__}: {message}\n")
        return self

    def __exit__(self, *exc):
        import warnings

        sys.stdout, sys.stderr, warnings.showwarning = self.saved

    def written(self) -> list:
        out, err = self.out.getvalue(), self.err.getvalue()
        return [["printed", out[:MAX_PRINTED], err[:MAX_PRINTED], len(out), len(err)]] if out or err else []


def _answer(function, args, kwargs, loose, seconds):
    """Call ``function`` and write what it gave: ``[kind, value or exception, args after, kwargs after]`` (both
    empty after a raise), then what it printed (:class:`_Printed`) where it printed, and last :data:`DREW` when
    the call moved the random module's generator; or why there is no answer (``timeout``, ``unserialisable``). A value that cannot be written whole (a compiled
    pattern, an object holding a bound method) is written as ``["?", its type, the attributes of its own that
    can be written]``: compared by those, where it would otherwise drop the whole answer."""
    import signal

    state = _RANDOM_STATE(_RANDOM)
    system_bytes = _fixed_system_bytes()
    printed = _Printed()
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        with printed:
            outcome = ["return", _consumed(function(*args, **kwargs))]
    except _Timeout:
        return ["timeout"]
    except BaseException as exc:  # noqa: BLE001 - what it raises is part of what it does
        outcome = ["raise", exc]
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        os.urandom, random._urandom = system_bytes
    after = printed.written() + ([DREW] if _RANDOM_STATE(_RANDOM) != state else [])

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
                ["d", [[["s", k], v] for k, v in zip(names, kwargs_after)]]] + after
    except BaseException as exc:  # noqa: BLE001
        return ["unserialisable", outcome[0], type(exc).__name__]
