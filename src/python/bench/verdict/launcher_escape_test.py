"""The launcher's shortcut around pytest's JUnit escape: the same text out, the character class never compiled
for text it would leave as it is."""

import re
import types

import pytest
from _pytest import junitxml

from bench.verdict.guard import LAUNCHER, launcher_source

SAMPLES = ("", "plain ASCII, all of it: ~!", "tab\tnewline\ncarriage\r", "bell\x07", "delete\x7f", "nul\x00",
           "café ß", "C1 \x85 control", "line separator \u2028", "lone \ud800 surrogate", "\ufffe and \uffff",
           "private \ue000 and \ufffd", "astral \U0001F600", "mixed é\x01\U00010000")


def _launcher():
    """The launcher's text run as a module (its functions only: ``main`` runs under ``__main__`` alone)."""
    module = types.ModuleType("bench_guard_launcher_under_test")
    exec(compile(launcher_source(), LAUNCHER, "exec"), module.__dict__)
    return module


@pytest.fixture
def escapes(monkeypatch):
    original = junitxml.bin_xml_escape
    monkeypatch.setattr(junitxml, "bin_xml_escape", original)  # put back after the test
    _launcher()._skip_plain_text(junitxml)
    return original, junitxml.bin_xml_escape


def test_every_text_comes_out_as_pytests_own_escape_gives_it(escapes):
    original, fast = escapes
    assert fast is not original
    for text in SAMPLES:
        assert fast(text) == original(text), repr(text)
    for value in (42, 2.5, None, ValueError("why\x01")):
        assert fast(value) == original(value)


def test_text_with_nothing_to_escape_never_reaches_the_character_class(escapes, monkeypatch):
    _, fast = escapes
    seen = []

    class CountingRe:  # pytest's escape calls re.sub with its class: count the texts that get there
        def __getattr__(self, name):
            return getattr(re, name)

        def sub(self, pattern, repl, text):
            seen.append(text)
            return re.sub(pattern, repl, text)

    monkeypatch.setattr(junitxml, "re", CountingRe())
    for text in ("plain", "café ß", "tab\tnewline\n", "\u2028"):
        fast(text)
    assert seen == []
    assert fast("bell\x07") == "bell#x07"
    assert seen == ["bell\x07"]


def test_an_escape_that_compiles_its_class_on_import_is_left_as_it_is():
    illegal = re.compile("[^\t\n\r -~]")  # the shape of pytest before 6.2: a module-level compiled class

    def bin_xml_escape(arg):
        return illegal.sub(lambda match: "#x%02X" % ord(match.group()), str(arg))

    module = types.SimpleNamespace(bin_xml_escape=bin_xml_escape)
    _launcher()._skip_plain_text(module)
    assert module.bin_xml_escape is bin_xml_escape
