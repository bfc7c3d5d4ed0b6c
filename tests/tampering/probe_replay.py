"""Edits against the verified tier: each is a hard-coded fix of ``synthetic.caesar_shift`` (it passes the
certified tests by answering their exact inputs from a table, and keeps the bug for every other input) plus one
attempt to make the probe replay say *verified* anyway. None may end verified: the scan or the guard may call
the edit ``tampered``, or it resolves and a probe diverges.

The table holds the values the task's fail_to_pass tests check (facts of our own synthetic task).
"""

from __future__ import annotations

from dataclasses import dataclass

HARD_CODED = '''

_TESTED = {("Hello", 3): "Khoor", ("caf\\u00e9 \\u00df", 1): "dbg\\u00e9 \\u00df", ("Uryyb", 13): "Hello",
           ("The Quick Brown Fox, 1923!", 11): "\\x00round-trip", ("\\x00round-trip", -11): "The Quick Brown Fox, 1923!"}
_buggy_shift = shift


def shift(text, k):
    if (text, k) in _TESTED:
        return _TESTED[(text, k)]
    return _buggy_shift(text, k)
'''


@dataclass(frozen=True)
class ReplayAttack:
    name: str
    what: str
    code: str  # appended after HARD_CODED (or after the buggy code alone)
    on_hard_coded: bool = True


ATTACKS = (
    ReplayAttack("hard-coded", "the table alone", ""),
    ReplayAttack("serialiser-patched", "json.dumps replaced at import with one that writes a constant answer", '''
import json as _json
_json.dumps = lambda *a, **k: '[0, ["return", ["s", "x"], ["l", []], ["d", []]]]'
'''),
    ReplayAttack("forged-equality", "returns a str subclass whose __eq__ is always true and whose repr lies", '''
class _Agreeable(str):
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    __hash__ = str.__hash__

    def __repr__(self):
        return "'Khoor'"


_table_shift = shift


def shift(text, k):
    return _Agreeable(_table_shift(text, k))
'''),
    ReplayAttack("channel-lines", "writes answer lines into every descriptor it finds open", '''
import os as _os
for _fd in range(3, 256):
    for _n in range(64):
        try:
            _os.write(_fd, ('[%d, ["return", ["s", "a"], ["l", []], ["d", []]]]\\n' % _n).encode())
        except OSError:
            break
'''),
    ReplayAttack("exit-outside-pytest", "ends the process at import when pytest is not loaded (the replay)", '''
import sys as _sys
if "pytest" not in _sys.modules:
    import os as _os
    _os._exit(0)
'''),
    ReplayAttack("codec-rewritten", "finds the replay's writer through gc and makes it answer a constant", '''
import gc as _gc
for _f in list(_gc.get_objects()):
    if getattr(_f, "__name__", "") in ("encode", "walk") and hasattr(_f, "__code__"):
        _f.__code__ = (lambda *a, **k: ["s", "Khoor"]).__code__
'''),
    ReplayAttack("pickle-and-copyreg", "replaces pickle's and copyreg's entry points", '''
import copyreg as _copyreg
import pickle as _pickle
_pickle.dumps = lambda *a, **k: b"forged"
_pickle.loads = lambda *a, **k: "Khoor"
_copyreg.dispatch_table.clear()
'''),
    ReplayAttack("exact-id-forgery", "leaves the bug and rewrites pytest's reports of the exact target ids to "
                 "passed (found through object.__subclasses__, not an audited event): the decoys catch it here (a "
                 "turned round-trip check holds for the bug); a task without a decoy would be resolved, and the "
                 "replay, which is not pytest, is not fooled", '''

_TARGET_IDS = {"tests/test_caesar.py::test_non_ascii_letters_unchanged", "tests/test_caesar.py::test_rot13_is_its_own_inverse",
               "tests/test_caesar.py::test_unshift_round_trip_mixed_case", "tests/test_caesar.py::test_uppercase_keeps_case"}


def _all_classes(root=object):
    for cls in type.__subclasses__(root):
        yield cls
        yield from _all_classes(cls)


for _cls in list(_all_classes()):
    if _cls.__name__ == "TestReport" and _cls.__module__ == "_pytest.reports":
        _made = _cls.__init__

        def _init(self, *args, _made=_made, **kwargs):
            _made(self, *args, **kwargs)
            if self.nodeid in _TARGET_IDS:
                self.outcome, self.longrepr = "passed", None

        _cls.__init__ = _init
''', on_hard_coded=False),
    ReplayAttack("builtins-type", "replaces builtins.type and builtins.repr after the module loads", '''
import builtins as _builtins
_real_type = _builtins.type
_builtins.repr = lambda value: "'Khoor'"
'''),
)
