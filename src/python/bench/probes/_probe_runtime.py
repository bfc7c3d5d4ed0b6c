"""Runs inside the sandbox on the task's interpreter: records the inputs of the probed functions while the tests
run, or replays recorded inputs against whatever code is in the work dir. Standard library only.

    python runtime.py record PYTEST_ARGS...   # configuration in BENCH_CHANNEL_PROBECONFIG, inputs out to _PROBES
    python runtime.py replay                  # inputs in BENCH_CHANNEL_PROBECONFIG, one output line per input out

Values are written by ``_probe_codec.py`` (copied beside this file): what cannot be written faithfully is
skipped (and counted) by the recorder, or reported as such by the replay; nothing is guessed. The codec is made
before any code of the work dir is imported. The host compares the written forms (``bench.probes.compare``):
the expected outputs never enter the sandbox.
"""

import io
import itertools
import json
import os
import sys
import types

from _probe_codec import Unserialisable, make_codec  # pants: no-infer-dep (beside this file: sys.path[0] at start)

_ITERATORS = (types.GeneratorType,)
MAX_ITEMS = 1000  # items taken from a generator a target returns


class _Timeout(BaseException):
    pass


def _channel(name, mode):
    path = os.environ.pop("BENCH_CHANNEL_" + name.upper())
    return open(path, mode)


def _config():
    with _channel("probeconfig", "rb") as handle:
        return json.loads(handle.read().decode("utf-8"))


def _underlying(module, qualname):
    """The function object a target names: a function, or the function under a method, static method, class
    method or property (getter) of a class of the module."""
    owner_name, _, name = qualname.rpartition(".")
    owner = module
    for part in owner_name.split(".") if owner_name else ():
        owner = getattr(owner, part)
    found = _static(owner, name)
    if isinstance(found, (staticmethod, classmethod)):
        return owner, name, found, found.__func__
    if isinstance(found, property):
        return owner, name, found, found.fget
    return owner, name, found, found


def _static(owner, name):
    """The attribute as the class (or module) holds it, without running a descriptor (inspect.getattr_static
    costs a tenth of the replay's start)."""
    for holder in type.__getattribute__(owner, "__mro__") if isinstance(owner, type) else (owner,):
        held = object.__getattribute__(holder, "__dict__")
        if name in held:
            return held[name]
    raise AttributeError(name)


def record(argv):
    """Run pytest with every target wrapped: each call's arguments are written (deduplicated, at most
    ``per_target`` per target) as they were on entry."""
    encode, _ = make_codec()
    config = _config()
    out = _channel("probes", "w")
    targets = [(t[0], t[1]) for t in config["targets"]]
    per_target = config["per_target"]
    seen, kept, counts = set(), {}, {}
    wanted = {os.path.join(os.getcwd(), f): f for f, _ in targets}

    def wrap(file, qualname, module):
        owner, name, raw, function = _underlying(module, qualname)
        index = targets.index((file, qualname))

        def probe(*args, **kwargs):
            tally = counts.setdefault(index, [0, 0, module.__name__, ""])
            tally[0] += 1
            if kept.get(index, 0) >= per_target or tally[0] > 20 * per_target:
                return function(*args, **kwargs)  # enough of this target: not written, not counted as skipped
            try:
                encoded = json.dumps([index, encode(list(args)), encode(kwargs)], sort_keys=True)
            except Exception as exc:  # noqa: BLE001 - anything that cannot be written is skipped and counted
                tally[1] += 1
                tally[3] = tally[3] or (str(exc) if isinstance(exc, Unserialisable) else type(exc).__name__)
            else:
                if encoded not in seen and kept.get(index, 0) < per_target:
                    seen.add(encoded)
                    kept[index] = kept.get(index, 0) + 1
                    out.write(encoded + "\n")
            return function(*args, **kwargs)

        import functools

        functools.update_wrapper(probe, function)
        if isinstance(raw, (staticmethod, classmethod)):
            replacement = type(raw)(probe)
        elif isinstance(raw, property):
            replacement = property(probe, raw.fset, raw.fdel, raw.__doc__)
        else:
            replacement = probe
        setattr(owner, name, replacement)

    def wrap_module(module):
        file = wanted.get(os.path.realpath(getattr(module, "__file__", "") or ""))
        if file is None or getattr(module, "__bench_probed__", False):
            return
        module.__bench_probed__ = True
        for target_file, qualname in targets:
            if target_file == file:
                try:
                    wrap(file, qualname, module)
                except Exception as exc:  # noqa: BLE001 - a target the module does not have at run time
                    counts[targets.index((file, qualname))] = [0, 0, "", "not found: " + type(exc).__name__]

    _install_hook(wrap_module)
    import atexit

    def finish():
        out.write(json.dumps({"counts": {str(k): v for k, v in sorted(counts.items())}}) + "\n")
        out.close()

    atexit.register(finish)
    sys.argv = [argv[0]]
    sys.path[0] = os.getcwd()
    import pytest

    return int(pytest.main(argv[1:]))


def _install_hook(after_exec):
    """Call ``after_exec(module)`` right after any module is executed, before an importer sees it."""
    import importlib.abc

    class Finder(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path, target=None):
            for finder in sys.meta_path:
                if finder is self or not hasattr(finder, "find_spec"):
                    continue
                spec = finder.find_spec(name, path, target)
                if spec is not None:
                    loader = spec.loader
                    if loader is not None and hasattr(loader, "exec_module") and spec.origin:
                        spec.loader = _Loader(loader, after_exec)
                    return spec
            return None

    sys.meta_path.insert(0, Finder())
    for module in list(sys.modules.values()):
        after_exec(module)


class _Loader:
    def __init__(self, inner, after_exec):
        self.inner, self.after_exec = inner, after_exec

    def create_module(self, spec):
        return self.inner.create_module(spec)

    def exec_module(self, module):
        self.inner.exec_module(module)
        self.after_exec(module)

    def __getattr__(self, name):
        return getattr(self.inner, name)


def replay():
    """Call each target with each input, in order, and write what it gave: one JSON line per input."""
    import importlib
    import signal

    encode, decode = make_codec()
    dumps, write, flush = json.dumps, io.TextIOWrapper.write, io.TextIOWrapper.flush  # bound before any import
    config = _config()
    out = _channel("outputs", "w")
    sys.argv = ["replay"]
    sys.path[0] = os.getcwd()
    seconds = config["seconds_per_call"]

    def alarm(signum, frame):
        raise _Timeout()

    signal.signal(signal.SIGALRM, alarm)
    functions = {}
    for index, (module_name, qualname) in enumerate(config["targets"]):
        try:
            functions[index] = _underlying(importlib.import_module(module_name), qualname)[3]
        except BaseException as exc:  # noqa: BLE001 - the candidate's module may not even import
            functions[index] = exc
    for number, (index, args, kwargs) in enumerate(config["inputs"]):
        answer = _one(functions[index], args, kwargs, encode, decode, seconds)
        write(out, dumps([number, answer], sort_keys=True, separators=(",", ":"), ensure_ascii=True) + "\n")
        flush(out)
    out.close()
    return 0


class _Yielded(list):
    """What a generator or iterator returned by a target yielded (written as a list of the same name)."""


def _one(function, args, kwargs, encode, decode, seconds):
    import signal

    if isinstance(function, BaseException):
        return ["unavailable", type(function).__name__]
    try:
        args, kwargs = decode(args), decode(kwargs)
    except BaseException as exc:  # noqa: BLE001
        return ["unbuildable", type(exc).__name__, str(exc)[:200]]
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
    try:
        return [outcome[0], encode(outcome[1]), encode(args), encode(kwargs)]
    except Unserialisable as exc:
        return ["unserialisable", outcome[0], str(exc)]
    except BaseException as exc:  # noqa: BLE001
        return ["unserialisable", outcome[0], type(exc).__name__]


if __name__ == "__main__":
    mode = sys.argv[1] if len(sys.argv) > 1 else ""
    if mode == "record":
        sys.exit(record(sys.argv[1:]))
    if mode == "replay":
        sys.exit(replay())
    sys.exit("usage: runtime.py record PYTEST_ARGS... | replay")
