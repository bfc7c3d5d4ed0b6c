"""Runs inside the sandbox, before anything of the workspace is imported: installs the audit guard, then pytest.

Usage (the harness binds this file read-only into the run; everything else arrives through descriptors)::

    python launcher.py PYTEST_ARGS...

Standard library only: it runs on the task's interpreter, not the harness's. Everything arrives as an inherited
descriptor named in a ``BENCH_CHANNEL_*`` variable (no path in the sandbox leads to one): ``guard`` carries the
configuration in (read once, then closed: nothing of it stays readable); ``report`` takes pytest's JUnit XML
out, ``marker`` a broken rule, and the ``spare*`` pipes nothing. The launcher drops the variables, moves every
outgoing pipe to a random descriptor number (closing the numbers the environment named at start) and makes
them uninheritable before pytest starts.

An audit hook cannot be removed once added (PEP 578), and it fires *before* the audited operation, so when an
event breaks a rule the hook writes the rule to the marker descriptor and kills its own process with SIGKILL:
the forbidden operation never happens and no code of the edit runs after it. The hook is a closure, not a
method of a class: no class of it is reachable through ``object.__subclasses__()``, and every function and
table it uses was bound when it was made, so replacing a module attribute or a global later changes nothing.

Which events count (docs/verdict-integrity.md, "audit"): always, the report opened other than once by pytest's
junitxml plugin, writes onto test files, runner config, ``.pth``/sitecustomize or any new module under the work
dir, a planted assertion-rewrite cache, ``os.exec*``; when the edit makes the call (the calling frame or one
of its two callers on a changed line; once the edit has started a thread, any thread but the main one), frame
and ``gc`` access, subprocesses, tracing and audit hooks, ``ctypes``, importing the runner (``_ATTRIBUTED``).

Every rule is one the honest fixes of the pool never break (``scripts/honest_fixes.py`` measures that).
"""

import json
import os
import signal
import sys
import threading


def main(argv):
    guard_path = os.environ.pop("BENCH_CHANNEL_GUARD")
    with open(guard_path, "rb") as handle:
        config = json.loads(handle.read().decode("utf-8"))
    _close_inherited(guard_path)
    paths = {name: os.environ.pop("BENCH_CHANNEL_" + name.upper()) for name in config["outgoing"]}
    outgoing = _renumbered(paths)
    report_path = "/dev/fd/%d" % outgoing["report"] if outgoing["report"] >= 0 else paths["report"]
    _not_dumpable()
    _seed_random()
    sys.addaudithook(_make_hook(config, outgoing["marker"], os.stat(report_path)))
    sys.argv = [argv[0]]  # what the code under test reads of the command line: nothing of the harness's
    sys.path[0] = os.getcwd()  # as `python -m pytest` has it: the work dir first, not this folder
    import pytest

    _cheap_xml_escape()
    return int(pytest.main([a.replace("${BENCH_CHANNEL_REPORT}", report_path) for a in argv[1:]]))


def _cheap_xml_escape():
    """pytest's JUnit writer (6.2 on) sends every name and message through ``re.sub`` with a character class
    whose first compilation is 7 % of a short task's whole run (63 of caesar_shift's 851 million instructions).
    Text with no character the class rejects comes back unchanged, so only other text goes to pytest's function
    (older releases compile the class on import: left as they are)."""
    from _pytest import junitxml

    _skip_plain_text(junitxml)


def _skip_plain_text(junitxml):
    import re

    original = getattr(junitxml, "bin_xml_escape", None)
    constants = getattr(getattr(original, "__code__", None), "co_consts", ())
    if not any(isinstance(c, str) and c.startswith("[^\t\n\r") for c in constants):
        return
    plain = re.compile("[^\t\n\r -~]").search
    rejected = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff\ufffe\uffff\U00010000-\U0010ffff]").search

    def bin_xml_escape(arg):
        text = str(arg)
        return text if plain(text) is None or rejected(text) is None else original(text)

    junitxml.bin_xml_escape = bin_xml_escape


def _seed_random():
    """The module-level ``random`` starts from one fixed state, as ``PYTHONHASHSEED=0`` fixes str hashes: a
    test that draws data (a local HTTP test server's random bytes, a shuffled list) draws the same data each
    run, so two runs of the same code end in the same failing state. Certification runs the tests unseeded,
    K times on each side: a certified test passes whatever it draws, this draw included."""
    import random

    random.seed(0)


def _not_dumpable():
    """PR_SET_DUMPABLE 0: another process of the run (a child the tests start, which runs without this guard)
    can no longer open ``/proc/<this pid>/fd/N`` to reach the report pipe; this process still can. Through
    ``_ctypes`` itself: the ``ctypes`` package costs ten times its import."""
    try:
        import _ctypes

        libc = _ctypes.dlopen(None, os.RTLD_NOW)
        _ctypes.call_function(_ctypes.dlsym(libc, "prctl"), (4, 0, 0, 0, 0))
    except (ImportError, OSError, AttributeError):
        return
    finally:  # the code under test imports it afresh (an import the guard watches)
        sys.modules.pop("_ctypes", None)


def _renumbered(paths):
    """Every outgoing channel moved to a random descriptor number, the inherited numbers closed, none of them
    inheritable by a child. The report, the marker and the spare channels are pipes alike: what the
    environment said at start (``/proc/self/environ`` keeps it) no longer tells which is which, and a write
    into a spare or the marker is itself seen."""
    import random

    found, taken = {}, set()
    for name, path in paths.items():
        if not path.startswith("/dev/fd/"):  # a backend without descriptors: a file, reachable by its path
            found[name] = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CLOEXEC) if name != "report" else -1
            continue
        fd = int(path.rsplit("/", 1)[1])
        target = _free_descriptor(random.SystemRandom(), taken)
        os.dup2(fd, target, inheritable=False)
        os.close(fd)
        found[name] = target
        taken.add(target)
    return found


def _free_descriptor(rng, taken):
    while True:
        fd = rng.randrange(100, 1000)
        if fd in taken:
            continue
        try:
            os.fstat(fd)
        except OSError:
            return fd


def _close_inherited(path):
    if path.startswith("/dev/fd/"):
        os.close(int(path.rsplit("/", 1)[1]))


_CONFIG_NAMES = frozenset({"conftest.py", "sitecustomize.py", "usercustomize.py", "pytest.ini", ".pytest.ini",
                           "tox.ini", "setup.cfg", "pyproject.toml"})
_ATTRIBUTED = (
    ("sys._getframe", "frame-walk"), ("sys._current_frames", "frame-walk"), ("gc.get_objects", "gc-walk"),
    ("gc.get_referrers", "gc-walk"), ("gc.get_referents", "gc-walk"), ("subprocess.Popen", "re-exec"),
    ("os.posix_spawn", "re-exec"), ("os.spawn", "re-exec"), ("os.system", "re-exec"), ("os.fork", "re-exec"),
    ("os.forkpty", "re-exec"), ("pty.spawn", "re-exec"), ("os.kill", "process-exit"),
    ("os.killpg", "process-exit"), ("signal.pthread_kill", "process-exit"), ("sys.settrace", "interpreter-hooks"),
    ("sys.setprofile", "interpreter-hooks"), ("sys._settraceallthreads", "interpreter-hooks"),
    ("sys._setprofileallthreads", "interpreter-hooks"), ("sys.addaudithook", "interpreter-hooks"),
    ("sys.monitoring.register_callback", "interpreter-hooks"), ("ctypes.dlopen", "interpreter-hooks"),
    ("ctypes.dlsym", "interpreter-hooks"), ("ctypes.call_function", "interpreter-hooks"),
    ("ctypes.cdata", "interpreter-hooks"), ("ctypes.addressof", "interpreter-hooks"),
    ("ctypes.string_at", "interpreter-hooks"), ("ctypes.PyObj_FromPtr", "interpreter-hooks"),
    ("_thread.start_new_thread", "thread-start"), ("_thread.start_joinable_thread", "thread-start"),
)
_FILE_EVENTS = ("os.rename", "os.link", "os.symlink", "shutil.copyfile", "shutil.move")
# Reading a function's __code__ is audited too, but inspect does it for every signature: not a rule.
_FRAME_ATTRS = frozenset({"tb_frame", "gi_frame", "cr_frame", "ag_frame"})
_RUNNER_MODULES = ("_pytest", "pytest", "pluggy", "ctypes", "_ctypes", "junitxml")
# Frames of these files stand between a call and the code that asked for it (thread starts, subprocesses).
_THROUGH = {"subprocess.Popen": ("subprocess.py",), "os.posix_spawn": ("subprocess.py",),
            "os.fork": ("subprocess.py",), "_thread.start_new_thread": ("threading.py", "concurrent/futures/"),
            "_thread.start_joinable_thread": ("threading.py", "concurrent/futures/")}
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND


def _make_hook(config, marker_fd, report_stat):
    """The audit hook, with every table and function it uses bound now, in its closure."""
    attributed = dict(_ATTRIBUTED)
    watched = frozenset({"open", "os.exec", "object.__getattr__", "object.__setattr__", "import", "os.remove",
                         "os.truncate", *_FILE_EVENTS, *attributed})
    thread_rules = frozenset(e for e in attributed if e != "sys._getframe")
    protected = frozenset(os.path.join("/work", p) for p in config["protected"])
    changed = {os.path.join("/work", p): frozenset(lines) for p, lines in config["changed"].items()}
    allowed = frozenset(config.get("allowed", ()))  # rules this task's own honest fix breaks
    getframe, realpath, fsdecode, dumps = sys._getframe, os.path.realpath, os.fsdecode, json.dumps
    write, kill, getpid, stat, exists = os.write, os.kill, os.getpid, os.stat, os.path.exists
    get_ident, main_ident, sigkill = threading.get_ident, threading.main_thread().ident, signal.SIGKILL
    report_id = (report_stat.st_dev, report_stat.st_ino)
    state = {"busy": False, "report_opened": False, "edit_threads": False}
    # Module globals can be rebound by the code under test (this module is __main__): the closure keeps its own.
    config_names, frame_attrs, file_events, runner_modules = _CONFIG_NAMES, _FRAME_ATTRS, _FILE_EVENTS, _RUNNER_MODULES
    through_of, write_flags = dict(_THROUGH), _WRITE_FLAGS

    def from_edit(through=(), depth=3):
        """Whether the frame that made the call, or one of the two that called it, is on a changed line, after
        the frames of ``through`` (the modules between the call and its asker). Three deep, not the whole
        stack: logging's own frame lookups sit deeper below a caller and stay clear."""
        frame = getframe(depth)
        while through and frame is not None and any(t in frame.f_code.co_filename for t in through):
            frame = frame.f_back
        for _ in range(3):
            if frame is None:
                return False
            lines = changed.get(frame.f_code.co_filename)
            if lines is not None and frame.f_lineno in lines:
                return True
            frame = frame.f_back
        return False

    def is_report(path):
        try:
            info = stat(fsdecode(path))
        except OSError:
            return False
        return (info.st_dev, info.st_ino) == report_id

    def is_planted(path):
        real = realpath(fsdecode(path))
        if real in protected:
            return True
        name = real.rsplit("/", 1)[-1]
        if real.startswith("/work/") and (name in config_names or name.endswith((".pth", ".py", ".pyc"))):
            return True
        return name.endswith(("sitecustomize.py", "usercustomize.py"))

    def open_rule(args):
        path, mode, flags = (tuple(args) + (None, None, None))[:3]
        if not isinstance(path, (str, bytes)):
            return ""
        writes = (isinstance(mode, str) and any(c in mode for c in "wax+")
                  or isinstance(flags, int) and bool(flags & write_flags))
        text = fsdecode(path)
        if not writes:  # the open is audited before it happens: a cache that is not there is no plant
            return "planted-bytecode" if text.endswith(".pyc") and "-pytest-" in text and exists(text) else ""
        if is_report(path):
            caller = getframe(3).f_code.co_filename
            first = not state["report_opened"]
            state["report_opened"] = True
            return "" if first and caller.endswith("junitxml.py") else "report-access"
        return "planted-file" if is_planted(path) else ""

    def rule_of(event, args):
        if event == "open":
            return open_rule(args)
        if event in file_events:
            return "planted-file" if isinstance(args[1], (str, bytes)) and is_planted(args[1]) else ""
        if event in ("os.remove", "os.truncate"):
            return "report-access" if isinstance(args[0], (str, bytes)) and is_report(args[0]) else ""
        if event == "os.exec":
            return "re-exec"
        if event == "object.__getattr__":  # reading a traceback's or generator's frame
            return "frame-walk" if args[1] in frame_attrs and edit_call() else ""
        if event == "object.__setattr__":  # swapping a function's code
            return "frame-walk" if args[1] == "__code__" and edit_call() else ""
        if event == "import":
            name = args[0] if args else ""
            if isinstance(name, str) and name.split(".")[0] in runner_modules and edit_call(("importlib",)):
                return "runner-internals"
            return ""
        rule = attributed.get(event) or ("interpreter-hooks" if event.startswith("ctypes.") else "")
        if not rule:
            return ""
        if rule == "thread-start":
            if from_edit(through_of.get(event, ())):
                state["edit_threads"] = True  # not a rule itself: what the thread then does may be
            return ""
        return rule if edit_call(through_of.get(event, ()), event in thread_rules) else ""

    def edit_call(through=(), thread_rule=True):
        if from_edit(through, 4):
            return True
        return thread_rule and state["edit_threads"] and get_ident() != main_ident

    def violation(rule, event, args):
        detail = dumps({"rule": rule, "event": event, "args": repr(args)[:300]})
        try:
            write(marker_fd, (detail + "\n").encode("utf-8", "replace"))
        finally:
            kill(getpid(), sigkill)

    quiet = set()  # events seen that no rule is about: the next one leaves after one set lookup

    def hook(event, args):
        # Called for every audited event (thousands per run, ``id()`` and attribute reads the most frequent).
        if event in quiet:
            return
        if event not in watched and event[:7] != "ctypes.":
            quiet.add(event)
            return
        if state["busy"]:
            return
        if event == "object.__getattr__" and (len(args) < 2 or args[1] not in frame_attrs):
            return  # only reading a frame matters (reading ``__code__`` is what ``inspect`` does all the time)
        if event == "object.__setattr__" and (len(args) < 2 or args[1] != "__code__"):
            return  # only swapping a function's code matters
        state["busy"] = True
        try:
            rule = rule_of(event, args)
            if rule and rule not in allowed:
                violation(rule, event, args)
        finally:
            state["busy"] = False

    return hook


if __name__ == "__main__":
    sys.exit(main(sys.argv))
