"""Runs inside the sandbox on the task's interpreter: records the inputs of the probed functions while the tests
run, or replays recorded inputs against whatever code is in the work dir. Standard library only.

    python runtime.py record PYTEST_ARGS...   # configuration in BENCH_CHANNEL_PROBECONFIG, inputs out to _PROBES
    python runtime.py replay                  # inputs in BENCH_CHANNEL_PROBECONFIG, one output line per input out
    python runtime.py inplace PYTEST_ARGS...  # in-place probes in BENCH_CHANNEL_PROBECONFIG, outputs as for replay

A call whose arguments cannot all be written (an object of a class a test made, a context, a callback) cannot
be replayed on its own. The recorder names it instead as a *site*: the test it happened in, the target, a
fingerprint of its arguments (what could be written of each, else its type) and which call of that fingerprint
in that test it was, with the arguments that could be written. The in-place mode runs the tests again and, at
each site's call, forks once: the child calls the target once per input, in the set's order, with the site's
live arguments, those that could be written replaced by the input's, writes what each call gave and exits, so
the test itself goes on untouched.

Values are written by ``_probe_codec.py`` (copied beside this file): what cannot be written faithfully is
skipped (and counted) by the recorder, or reported as such by the replay; nothing is guessed. The codec is made
before any code of the work dir is imported. The host compares the written forms (``bench.probes.compare``):
the expected outputs never enter the sandbox.
"""

import io
import json
import os
import sys

from _probe_calls import (  # pants: no-infer-dep (beside this file: sys.path[0] at start)
    DREW, _after_a_draw, _answer, _live_call, _site_of, _site_waited, _template, _Timeout,
)
from _probe_codec import Unserialisable, make_codec  # pants: no-infer-dep (beside this file: sys.path[0] at start)

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


def _fixed_temp_names():
    """tempfile draws its names from a generator seeded by ``os.urandom``: a recorded argument holding a temp
    file's name (a parser's ``filename``, a ``GzipFile``) differed at every recording, and the probe set with it
    (pyflakes, click and pyasn1 mutants). While recording, the names come from a generator of a fixed seed. Only
    here: the reference alone records, whereas a replay or an in-place run also runs the candidate, whose own
    temp names are no business of the comparison (they vary, and are masked)."""
    import random
    import tempfile

    fixed = random.Random(0)  # its own generator: the random module's, which tests draw from, is untouched
    try:
        class _Names(tempfile._RandomNameSequence):
            @property
            def rng(self):
                return fixed

        tempfile._name_sequence = _Names()
    except AttributeError:  # an interpreter whose tempfile has no such sequence: names stay as they are
        pass


def record(argv):
    """Run pytest with every target wrapped: each call's arguments are written (deduplicated, at most
    ``per_target`` per target) as they were on entry; a call whose arguments cannot all be written is named as
    a site instead (at most ``sites_per_target`` per target)."""
    _fixed_temp_names()
    encode, _ = make_codec()
    config = _config()
    out = _channel("probes", "w")
    targets = [(t[0], t[1]) for t in config["targets"]]
    per_target, per_target_sites = config["per_target"], config.get("sites_per_target", 0)
    # the tests the reference change is about (a task's fail_to_pass): their sites are named past the cap
    preferred, preferred_sites = set(config.get("preferred_tests", ())), config.get("preferred_sites", 0)
    seen, kept, counts, sited, calls, occurrences = set(), {}, {}, {}, {}, {}

    def observe(index, module, function, args, kwargs):
        tally = counts.setdefault(index, [0, 0, module.__name__, ""])
        tally[0] += 1
        named = sited.get((index, "preferred"), 0) < preferred_sites and os.environ.get(
            "PYTEST_CURRENT_TEST", "").rpartition(" (")[0] in preferred
        if (kept.get(index, 0) >= per_target or tally[0] > 20 * per_target) and not named:
            # enough of this target: not written, not counted as skipped, and not named as a site either (no
            # later call of it is written, so its place among them is nobody's concern): a target a test calls
            # a million times costs a count each time after that
            return
        site = _site_of(index, targets[index][1], args, kwargs, encode, calls, occurrences, own=False) \
            if per_target_sites else None
        try:
            encoded = json.dumps([index, encode(list(args)), encode(kwargs)], sort_keys=True)
        except Exception as exc:  # noqa: BLE001 - anything that cannot be written is skipped and counted
            tally[1] += 1
            tally[3] = tally[3] or (str(exc) if isinstance(exc, Unserialisable) else type(exc).__name__)
            if site is not None and (sited.get(index, 0) < per_target_sites or named):
                key = (index, "preferred") if sited.get(index, 0) >= per_target_sites else index
                sited[key] = sited.get(key, 0) + 1
                site = written(index, site, args, kwargs)
                out.write(json.dumps(["site", index] + site, sort_keys=True) + "\n")
        else:
            if encoded not in seen and kept.get(index, 0) < per_target:
                seen.add(encoded)
                kept[index] = kept.get(index, 0) + 1
                # with its site: a call the replay cannot build again (a class of a test module) is probed there
                line = encoded if site is None else json.dumps(
                    [index, encode(list(args)), encode(kwargs), written(index, site, args, kwargs)], sort_keys=True)
                out.write(line + "\n")

    def written(index, site, args, kwargs):  # the site as it is written: its live arguments with their own attributes
        return site[:3] + list(_template(args, kwargs, encode, "." in targets[index][1])[:2])

    _wrap_targets(targets, observe, counts)
    import atexit

    def finish():
        out.write(json.dumps({"counts": {str(k): v for k, v in sorted(counts.items())}}) + "\n")
        out.close()

    atexit.register(finish)
    return _pytest(argv)


def _pytest(argv):
    sys.argv = [argv[0]]
    sys.path[0] = os.getcwd()
    import pytest

    return int(pytest.main(argv[1:]))


def _wrap_targets(targets, observe, counts):
    """Wrap every target as its module is executed: ``observe(index, module, function, args, kwargs)`` runs
    before each call (``function`` is the target unwrapped; a call from inside ``observe`` is not observed)."""
    import functools

    wanted = {os.path.join(os.getcwd(), f): f for f, _ in targets}
    busy = []

    def wrap(file, qualname, module):
        owner, name, raw, function = _underlying(module, qualname)
        index = targets.index((file, qualname))

        def probe(*args, **kwargs):
            if not busy:
                busy.append(True)
                try:
                    observe(index, module, function, args, kwargs)
                finally:
                    busy.pop()
            return function(*args, **kwargs)

        functools.update_wrapper(probe, function)
        if isinstance(raw, (staticmethod, classmethod)):
            replacement = type(raw)(probe)
        elif isinstance(raw, property):
            replacement = property(probe, raw.fset, raw.fdel, raw.__doc__)
        else:
            replacement = probe
        setattr(owner, name, replacement)
        counts.setdefault(index, [0, 0, module.__name__, ""])  # imported and wrapped, called or not
        if owner is module:
            _rebind_in_registries(module, raw, replacement)

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


def _rebind_in_registries(module, raw, replacement):
    """Put ``replacement`` wherever a dict, list or tuple among the module's own globals holds ``raw``, down to
    three levels, and in every ``functools.partial`` there that calls it: a registry such as jinja2's
    ``FILTERS = {"abs": do_abs, …}`` is filled while the module runs, before any wrapping, and the tests reach
    the function through it, never through the module's attribute; tabulate keeps its row formatters as
    ``partial(_mediawiki_row_with_attrs, "|")`` inside the named tuples of its ``_table_formats``. Exact types
    only: nothing of a value's own code runs."""
    import functools

    partial, seen = functools.partial, set()

    def visit(held, depth):
        if depth > 3 or id(held) in seen or len(seen) > 20000:  # a data table of thousands of tuples: enough
            return
        seen.add(id(held))
        kind = type(held)
        if kind is dict:
            for key, value in list(dict.items(held)):
                if value is raw:
                    dict.__setitem__(held, key, replacement)
                else:
                    visit(value, depth + 1)
        elif kind is list:
            for at, value in enumerate(list(list.__iter__(held))):
                if value is raw:
                    list.__setitem__(held, at, replacement)
                else:
                    visit(value, depth + 1)
        elif kind is partial:
            if held.func is raw:
                held.__setstate__((replacement, held.args, held.keywords, None))
        elif issubclass(kind, tuple):  # a tuple or a named tuple: rebuilt by nobody, searched for what it holds
            for value in tuple.__iter__(held):
                visit(value, depth + 1)

    for value in list(object.__getattribute__(module, "__dict__").values()):
        visit(value, 0)


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

    _, decode = make_codec()
    loose, _ = make_codec(loose=True)
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
        answer = _one(functions[index], args, kwargs, loose, decode, seconds)
        write(out, dumps([number, answer], sort_keys=True, separators=(",", ":"), ensure_ascii=True) + "\n")
        flush(out)
    out.close()
    return 0


def in_place(argv):
    """Run pytest with every target wrapped; at each site's call, answer the site's inputs in a forked child
    (``[number, answer]`` lines, as the replay writes them), then let the call go on."""
    import signal

    encode, decode = make_codec()
    loose, _ = make_codec(loose=True)
    index_globals = loose.index_globals  # bound before any code of the work dir runs
    dumps, fork, pipe, write, exit_now = json.dumps, os.fork, os.pipe, os.write, os._exit
    config = _config()
    fd = os.open(os.environ.pop("BENCH_CHANNEL_OUTPUTS"), os.O_WRONLY)  # unbuffered: a child shares nothing
    targets = [(t[0], t[1]) for t in config["targets"]]
    seconds = config["seconds_per_call"]
    sites, tests, calls, occurrences = {}, set(), {}, {}
    for index, test, mark, occurrence, inputs in config["sites"]:
        sites[(index, test, mark, occurrence)] = inputs
        tests.add((index, test))

    def alarm(signum, frame):
        raise _Timeout()

    def answered(number, answer):  # one unbuffered line: a forked child and its parent share the descriptor
        write(fd, (dumps([number, answer], sort_keys=True, separators=(",", ":"), ensure_ascii=True) + "\n").encode())

    def answer_site(function, args, kwargs, inputs):
        """One child answers the site's inputs in turn, each call seeing what the earlier ones left (the same
        for the reference and the candidate: the order is the set's); it stops after a call that timed out,
        whose state nobody can repeat. An input it did not answer is written here."""
        index_globals()  # once here, warm in every child after it, where a child's own index dies with it
        progress, done = pipe()
        child = fork()
        if child == 0:
            status = 3
            try:
                os.close(progress)
                signal.signal(signal.SIGALRM, alarm)
                drew = False
                for number, args_t, kwargs_t in inputs:
                    answer = _live_call(function, args, kwargs, args_t, kwargs_t, decode, loose, seconds)
                    answer = _after_a_draw(answer, drew)
                    drew = drew or answer[-1] == DREW
                    answered(number, answer)
                    write(done, b".")
                    if answer[0] == "timeout":
                        break
                status = 0
            finally:
                exit_now(status)
        os.close(done)
        count, why = _site_waited(child, progress, len(inputs), seconds)
        for at, (number, _, _) in enumerate(inputs[count:]):
            answered(number, [why] if why and not at else ["unanswered"])

    def observe(index, module, function, args, kwargs):
        if (index, os.environ.get("PYTEST_CURRENT_TEST", "")) not in tests:
            return
        site = _site_of(index, targets[index][1], args, kwargs, encode, calls, occurrences, own=False)
        inputs = sites.pop((index,) + tuple(site[:3]), ()) if site else ()
        if inputs:
            answer_site(function, args, kwargs, inputs)
        if site and not sites:
            exit_now(0)  # every site answered (each line already written, unbuffered): the rest of the tests can go

    _wrap_targets(targets, observe, {})
    return _pytest(argv)


def _one(function, args, kwargs, loose, decode, seconds):
    if isinstance(function, BaseException):
        return ["unavailable", type(function).__name__]
    try:
        args, kwargs = decode(args), decode(kwargs)
    except BaseException as exc:  # noqa: BLE001
        return ["unbuildable", type(exc).__name__, str(exc)[:200]]
    return _answer(function, args, kwargs, loose, seconds)


if __name__ == "__main__":
    mode = sys.argv[1] if len(sys.argv) > 1 else ""
    if mode == "record":
        sys.exit(record(sys.argv[1:]))
    if mode == "replay":
        sys.exit(replay())
    if mode == "inplace":
        sys.exit(in_place(sys.argv[1:]))
    sys.exit("usage: runtime.py record PYTEST_ARGS... | replay | inplace PYTEST_ARGS...")
