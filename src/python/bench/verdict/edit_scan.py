"""What an edit *adds* that no honest fix needs: the static layer against verdict forgery.

The edited module is imported into the interpreter that runs the tests, so an edit can reach the test runner
itself (rewrite its reports, find its config through ``gc`` or frames, read the report path from ``sys.argv``,
exit before failures are written, plant files and re-execute, load an original copy of the code). Each of
those needs a construct that library code fixing a bug has no use for. This module parses the base and the
edited text of every edited source file, counts such constructs in both, and flags each one whose count the
edit *raised* — code the base already had is never held against the edit, wherever it moved.

It runs on the host, before anything of the edit executes, so nothing the edit does at run time can change
its answer. It is one layer of several (see docs/verdict-integrity.md): obfuscation that hides every flagged
name is met by the run-time layers (canary tests, the audit guard, read-only tests, masked vendored copies).

A finding is ``(rule, detail)``; the rules:

- ``runner-internals``   the test runner's modules or files: ``pytest``, ``_pytest``, ``pluggy``, ``junit``
- ``frame-walk``         stack frames and code objects: ``sys._getframe``, ``inspect.currentframe``/``stack``,
                          ``f_back``, ``tb_frame``, ``gi_frame``, ``f_globals``, ``__code__`` …
- ``gc-walk``            ``gc.get_objects`` / ``get_referrers`` / ``get_referents``
- ``process-exit``       ``os._exit``, ``atexit``, ``os.kill``, ``signal`` handlers, ``sys.excepthook``
- ``re-exec``            ``os.exec*``, ``os.spawn*``, ``os.fork``, ``os.system``, ``os.popen``, ``subprocess``,
                          ``pty``, ``multiprocessing``
- ``command-line``       ``sys.argv`` / ``sys.orig_argv``
- ``import-machinery``   ``sys.modules``, ``sys.meta_path``, ``sys.path_hooks``, ``sys.path`` changes,
                          ``__import__``, ``importlib`` loaders, ``runpy``, ``zipimport``, ``site``
- ``dynamic-code``       ``exec``, ``eval``, ``compile``, ``marshal``, ``types.CodeType``, decoders of hidden
                          text (``base64``, ``zlib``, ``codecs.decode``)
- ``interpreter-hooks``  ``sys.settrace``/``setprofile``, ``sys.monitoring``, ``sys.addaudithook``, ``ctypes``,
                          ``builtins`` / ``__builtins__``
- ``vendored-copy``      the packaging tools that carry copies of libraries: ``pip``, ``setuptools``,
                          ``pkg_resources``, ``ensurepip``
- ``planted-files``      text naming what steers a test run: ``conftest``, ``sitecustomize``, ``.pth``,
                          ``pytest.ini``, ``tox.ini``, ``setup.cfg``, ``site-packages``, ``_vendor``,
                          ``ensurepip``, ``/work/``
- ``test-names``         text naming the task's test files or test functions
"""

from __future__ import annotations

import ast
import functools
import re
from collections import Counter
from dataclasses import dataclass
from typing import Iterable, Sequence

from bench import pyast

_RUNNER_MODULES = ("pytest", "_pytest", "pluggy", "py", "unittest")
_RUNNER_WORDS = ("pytest", "pluggy", "junit", "xunit", "testreport", "runtest")
_FRAME_ATTRS = frozenset({
    "f_back", "f_globals", "f_locals", "f_builtins", "f_code", "f_lineno", "f_trace", "tb_frame", "tb_next",
    "gi_frame", "cr_frame", "ag_frame", "gi_code", "__code__", "co_code", "__globals__", "__closure__",
})
_FRAME_CALLS = frozenset({
    "sys._getframe", "sys._current_frames", "inspect.currentframe", "inspect.stack",
    "inspect.trace", "inspect.getouterframes", "inspect.getinnerframes", "inspect.getframeinfo",
    "traceback.extract_stack", "traceback.walk_stack",
})
_GC_CALLS = frozenset({"gc.get_objects", "gc.get_referrers", "gc.get_referents", "gc.callbacks"})
_EXIT_CALLS = frozenset({"os._exit", "os.kill", "os.killpg", "os.abort", "signal.signal", "signal.alarm",
                         "signal.setitimer", "sys.excepthook", "threading.excepthook", "sys.unraisablehook"})
_EXEC_PREFIXES = ("os.exec", "os.spawn", "os.posix_spawn")
_EXEC_CALLS = frozenset({"os.fork", "os.forkpty", "os.system", "os.popen", "os.register_at_fork"})
_EXEC_MODULES = ("subprocess", "pty", "multiprocessing", "concurrent.futures.process")
_ARGV = frozenset({"sys.argv", "sys.orig_argv"})
_IMPORT_NAMES = frozenset({
    "sys.modules", "sys.meta_path", "sys.path_hooks", "sys.path_importer_cache", "sys.path",
    "importlib.util.spec_from_file_location", "importlib.util.module_from_spec", "importlib.machinery",
    "importlib.reload", "importlib.invalidate_caches", "importlib.import_module", "importlib.__import__",
})
_IMPORT_MODULES = ("runpy", "zipimport", "imp", "site", "importlib.machinery", "importlib.abc", "pkgutil")
_DYNAMIC_BUILTINS = frozenset({"exec", "eval", "compile", "__import__", "breakpoint", "globals", "vars"})
_DYNAMIC_MODULES = ("marshal", "base64", "zlib", "lzma", "bz2", "binascii", "pickle", "code", "codeop")
_DYNAMIC_NAMES = frozenset({"types.CodeType", "types.FunctionType", "codecs.decode", "codecs.encode"})
_HOOK_NAMES = frozenset({"sys.settrace", "sys.setprofile", "sys.monitoring", "sys.addaudithook", "sys.audit",
                         "threading.settrace", "threading.setprofile", "sys.setrecursionlimit"})
_HOOK_MODULES = ("ctypes", "_ctypes", "cffi", "builtins", "mmap", "gc", "atexit", "faulthandler", "tracemalloc")
_PLANT_WORDS = ("conftest", "sitecustomize", "usercustomize", ".pth", "pytest.ini", "tox.ini", "setup.cfg",
                "pyproject.toml", "site-packages", "dist-packages", "_vendor", "ensurepip", "/work/", "/work\"",
                "__pycache__", ".pyc", "/proc/")
_VENDORING_MODULES = ("pip", "setuptools", "pkg_resources", "ensurepip", "_distutils_hack", "distutils")
_MODULE_RULES = (
    (_RUNNER_MODULES, "runner-internals"),
    (_VENDORING_MODULES, "vendored-copy"),
    (_EXEC_MODULES, "re-exec"),
    (_IMPORT_MODULES, "import-machinery"),
    (_DYNAMIC_MODULES, "dynamic-code"),
    (_HOOK_MODULES, "interpreter-hooks"),
)
_HOOK_MODULE_RULES = {"atexit": "process-exit", "gc": "gc-walk"}
_NAME_TRIGGERS = frozenset(_DYNAMIC_BUILTINS | {"__builtins__"})


@dataclass(frozen=True)
class Finding:
    rule: str
    detail: str  # the construct, e.g. "sys.argv" or "import _pytest"
    path: str

    def describe(self) -> str:
        return f"{self.rule}: {self.detail} ({self.path})"


def scan_edit(before: Sequence[tuple[str, str]], after: Sequence[tuple[str, str]], *,
              test_names: Iterable[str] = ()) -> tuple[Finding, ...]:
    """Findings the edit raised, in a stable order. ``before``/``after`` are (path, text) of the same files;
    ``test_names`` are the task's test file paths and test function names (text naming them is flagged)."""
    words = _test_words(test_names)
    old = dict(before)
    found: list[Finding] = []
    for path, text in after:
        if text == old.get(path, "") or not path.endswith(".py"):
            continue
        new_counts = constructs(text, words)
        if new_counts is None:  # does not parse: it cannot run either; the tests will say so
            continue
        old_counts = constructs(old.get(path, ""), words) or Counter()
        for (rule, detail), count in sorted(new_counts.items()):
            if count > old_counts.get((rule, detail), 0):
                found.append(Finding(rule, detail, path))
    return tuple(found)


def constructs(text: str, test_words: tuple[str, ...] = ()) -> Counter | None:
    """Every flagged construct of one file's text, counted; None when it does not parse. Cached: every
    attempt at a task scans the same base text (a large module parses and walks in tens of milliseconds)."""
    counts = _constructs(text, tuple(test_words))
    return None if counts is None else Counter(dict(counts))


@functools.lru_cache(maxsize=64)
def _constructs(text: str, test_words: tuple[str, ...]) -> tuple | None:
    try:
        tree = pyast.parse(text)
    except (SyntaxError, ValueError):
        return None
    nodes = list(ast.walk(tree))
    counts: Counter = Counter()
    aliases = _module_aliases(nodes)
    # Docstrings and other bare string statements are prose: naming pytest there is no forgery (text that is
    # executed needs exec/eval/compile, flagged on their own).
    prose = {id(node.value) for node in nodes if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)}
    shadowed = _bound_names(nodes)
    names = (_NAME_TRIGGERS | {name for name, target in aliases.items() if target != name}) - shadowed
    words = _words_pattern(test_words)
    for node in nodes:
        # Most nodes of a large module are plain names and short strings: each is one set lookup or one
        # regular-expression search (a 230 KB data module scans in a fraction of a second).
        if isinstance(node, ast.Name):
            if node.id not in names:  # the module's own `compile` is not the builtin
                continue
        elif isinstance(node, ast.Constant):
            if id(node) in prose or not isinstance(node.value, (str, bytes)) or not words.search(
                    node.value.decode("latin-1") if isinstance(node.value, bytes) else node.value):
                continue
        elif not isinstance(node, (ast.Attribute, ast.Import, ast.ImportFrom)):
            continue
        for finding in _node_findings(node, aliases, test_words):
            counts[finding] += 1
    return tuple(counts.items())


def _node_findings(node: ast.AST, aliases: dict[str, str], test_words: tuple[str, ...]):
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        yield from _import_findings(node)
    elif isinstance(node, ast.Attribute):
        if node.attr in _FRAME_ATTRS:
            yield ("frame-walk", node.attr)
        dotted = _dotted(node, aliases)
        if dotted:
            yield from _name_findings(dotted)
    elif isinstance(node, ast.Name):
        if node.id in _DYNAMIC_BUILTINS:
            yield ("dynamic-code", node.id)
        elif node.id == "__builtins__":
            yield ("interpreter-hooks", node.id)
        elif node.id in aliases and aliases[node.id] != node.id:
            yield from _name_findings(aliases[node.id])
    elif isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes)):
        yield from _text_findings(node.value, test_words)


def _import_findings(node: ast.Import | ast.ImportFrom):
    if isinstance(node, ast.ImportFrom):
        base = "." * node.level + (node.module or "")
        names = [f"{base}.{alias.name}" if base else alias.name for alias in node.names]
        names.append(base)
    else:
        names = [alias.name for alias in node.names]
    for name in names:
        rule = _module_rule(name)
        if rule:
            yield (rule, f"import {name}")
        elif name.startswith(("sys.", "os.", "inspect.", "importlib.")):
            yield from _name_findings(name)


def _module_rule(name: str) -> str:
    head = name.split(".")[0]
    for modules, rule in _MODULE_RULES:
        for module in modules:
            if name == module or name.startswith(module + ".") or head == module:
                return _HOOK_MODULE_RULES.get(module, rule)
    return ""


def _name_findings(dotted: str):
    """Rules for a dotted name such as ``sys.argv`` or ``os.execv`` (the name and each of its prefixes)."""
    parts = dotted.split(".")
    for end in range(len(parts), 0, -1):
        name = ".".join(parts[:end])
        rule = _dotted_rule(name)
        if rule:
            yield (rule, name)
            return


def _dotted_rule(name: str) -> str:
    if name in _FRAME_CALLS:
        return "frame-walk"
    if name in _GC_CALLS:
        return "gc-walk"
    if name in _EXIT_CALLS:
        return "process-exit"
    if name in _EXEC_CALLS or name.startswith(_EXEC_PREFIXES):
        return "re-exec"
    if name in _ARGV:
        return "command-line"
    if name in _IMPORT_NAMES:
        return "import-machinery"
    if name in _HOOK_NAMES or name.startswith("sys.monitoring"):
        return "interpreter-hooks"
    if name in _DYNAMIC_NAMES:
        return "dynamic-code"
    if "." in name and _module_rule(name) and name.split(".")[0] in {"subprocess", "ctypes", "_pytest", "pytest",
                                                                      "pluggy", "runpy", "marshal", "atexit",
                                                                      "builtins", "zipimport"}:
        return _module_rule(name)
    return ""


@functools.lru_cache(maxsize=64)
def _words_pattern(test_words: tuple[str, ...]) -> re.Pattern:
    """One search for every word a string constant could be flagged for (runner and plant words ignore case)."""
    folded = "|".join(re.escape(w) for w in (*_RUNNER_WORDS, *_PLANT_WORDS))
    exact = "|".join(re.escape(w) for w in test_words)
    return re.compile(f"(?i:{folded})" + (f"|{exact}" if exact else ""))


def _text_findings(value: str | bytes, test_words: tuple[str, ...]):
    text = value.decode("latin-1") if isinstance(value, bytes) else value
    lowered = text.lower()
    for word in _RUNNER_WORDS:
        if word in lowered:
            yield ("runner-internals", f"text {word!r}")
    for word in _PLANT_WORDS:
        if word in lowered:
            yield ("planted-files", f"text {word!r}")
    for word in test_words:
        if word in text:
            yield ("test-names", f"text {word!r}")


def _test_words(test_names: Iterable[str]) -> tuple[str, ...]:
    """The distinctive parts of test ids: file paths and stems, and function names (parameters cut off)."""
    words = set()
    for name in test_names:
        path, _, rest = name.partition("::")
        if path:
            words.add(path)
            stem = path.rsplit("/", 1)[-1].removesuffix(".py")
            if stem.startswith("test"):
                words.add(stem)
        for part in rest.split("::"):
            part = part.split("[", 1)[0]
            if part.lower().startswith("test") and len(part) > 5:
                words.add(part)
    return tuple(sorted(words))


def _bound_names(nodes: list[ast.AST]) -> frozenset[str]:
    """Names the file binds itself (functions, classes, assignments, arguments) that shadow a builtin."""
    bound = set()
    for node in nodes:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            bound.add(node.id)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
    return frozenset(bound & _DYNAMIC_BUILTINS)


def _module_aliases(nodes: list[ast.AST]) -> dict[str, str]:
    """Local names bound by imports to the dotted module or object they stand for (``from os import _exit``
    binds ``_exit`` to ``os._exit``; ``import subprocess as sp`` binds ``sp`` to ``subprocess``)."""
    aliases: dict[str, str] = {}
    for node in nodes:
        if isinstance(node, ast.Import):
            for alias in node.names:
                aliases[alias.asname or alias.name.split(".")[0]] = alias.name if alias.asname else \
                    alias.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return aliases


def _dotted(node: ast.Attribute, aliases: dict[str, str]) -> str:
    parts = [node.attr]
    value = node.value
    while isinstance(value, ast.Attribute):
        parts.append(value.attr)
        value = value.value
    if not isinstance(value, ast.Name):
        return ""
    head = aliases.get(value.id, value.id)
    return ".".join([head, *reversed(parts)])
