"""Reading pytest's JUnit XML into per-test outcomes keyed by pytest node id.

The XML is the only source of per-test truth: text printed by the tests is never read, so code that prints
"PASSED" changes nothing. Node ids are rebuilt from JUnit's dotted classname with the task's test files as the
map from module names back to paths.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass
from typing import Iterable

from bench.errors import CheckFailed

TEST_OUTCOMES = ("passed", "failed", "error", "skipped", "xfailed", "xpassed")  # of one test case


@dataclass(frozen=True)
class TestOutcome:
    test_id: str
    outcome: str  # one of TEST_OUTCOMES
    message: str  # first line of the failure/error message ("" when passed)
    detail: str  # failure text (trimmed) for feedback


@dataclass(frozen=True)
class JUnitReport:
    outcomes: tuple[TestOutcome, ...]
    collection_errors: tuple[TestOutcome, ...]  # errors reported against a module, not a test

    def by_id(self) -> dict[str, TestOutcome]:
        return {o.test_id: o for o in self.outcomes}


def parse_junit(xml_bytes: bytes, test_files: Iterable[str]) -> JUnitReport:
    """The report's outcomes; any report that cannot be read is a ``CheckFailed`` (the code under test can
    write it: an unknown encoding, a document type, entities or nesting too deep are its fault, never a crash)."""
    if b"<!DOCTYPE" in xml_bytes or b"<!ENTITY" in xml_bytes:  # pytest writes neither; entities can explode
        raise CheckFailed("unreadable JUnit XML: a document type or entity declaration")
    try:
        root = ET.fromstring(xml_bytes)
    except (ET.ParseError, LookupError, ValueError, RecursionError, MemoryError) as exc:
        raise CheckFailed(f"unreadable JUnit XML: {type(exc).__name__}: {exc}") from exc
    modules = {_module_of(path): path for path in test_files}
    outcomes, collection = [], []
    for case in root.iter("testcase"):
        test_id = _node_id(case.get("classname", ""), case.get("name", ""), modules)
        outcome = _outcome(case)
        if test_id is None:
            outcome = TestOutcome(f"<collection>::{case.get('classname', '')}", outcome.outcome,
                                  outcome.message, outcome.detail)
            collection.append(outcome)
            continue
        outcomes.append(TestOutcome(test_id, outcome.outcome, outcome.message, outcome.detail))
    return JUnitReport(tuple(sorted(outcomes, key=lambda o: o.test_id)), tuple(collection))


def _module_of(path: str) -> str:
    return path[:-3].replace("/", ".") if path.endswith(".py") else path.replace("/", ".")


def _node_id(classname: str, name: str, modules: dict[str, str]) -> str | None:
    # Longest module prefix wins: `tests.test_a.TestX` → tests/test_a.py::TestX::name
    for module in sorted(modules, key=len, reverse=True):
        if classname == module or classname.startswith(module + "."):
            classes = classname[len(module) + 1:].split(".") if classname != module else []
            return "::".join([modules[module], *[c for c in classes if c], name])
    if not classname and name:  # collection error: pytest reports the module path as the name
        return None
    return None


def _outcome(case: ET.Element) -> TestOutcome:
    for tag, outcome in (("failure", "failed"), ("error", "error")):
        node = case.find(tag)
        if node is not None:
            return TestOutcome("", outcome, _first_line(node.get("message", "")), _trim(node.text or ""))
    skipped = case.find("skipped")
    if skipped is not None:
        kind = "xfailed" if skipped.get("type") == "pytest.xfail" else "skipped"
        return TestOutcome("", kind, _first_line(skipped.get("message", "")), "")
    return TestOutcome("", "passed", "", "")


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0][:500] if text.strip() else ""


def _trim(text: str, limit: int = 4000) -> str:
    text = text.strip()
    return text if len(text) <= limit else text[: limit // 2] + "\n…\n" + text[-limit // 2:]
