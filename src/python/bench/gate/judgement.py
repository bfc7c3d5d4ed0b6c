"""Is a merged change a bug fix? The judgement admission records in a PR task's provenance.

The gate proves that tests flip from failing to passing; it cannot tell a fix from a feature whose new tests
fail only because the feature does not exist yet. This module reads what the project itself says and what the
change looks like, from a :class:`FixChange` (made from the repository by :mod:`bench.gate.judge_inputs`):

1. **revert** — the title starts with ``Revert`` or the message says ``This reverts commit`` (a quoted "fix"
   inside a revert's title is not a fix);
2. **the project's words** (:mod:`bench.gate.project_words`, :mod:`bench.gate.changelog_refs`) — changelog
   fragments and entries the change adds, and entries about it read from the history (``project-entry:``):
   naming its PR or issue numbers at the fix or in the release that shipped it, or naming a function it edits
   in that release's section; filed as bug fix, feature (``Added``), change (``Changed``, misc, docs) or breaking;
3. **the diff's shape** (:mod:`bench.gate.change_shapes`, :mod:`bench.gate.contract_changes`) — what the
   fail_to_pass tests need that the base did not have (a public name, a parameter, a return value); existing
   tests whose expectations the change rewrites (literals swapped, or expected structures that gain or lose
   entries); a documented exception swapped with its docstring; an existing test inverted;
4. **the history** (:mod:`bench.gate.judge_history`) — a corrected expectation that a commit of the same
   release wrote together with the bug (a regression fix, exempt from the shapes above), and a later commit
   setting the new expectation back (a reversal);
5. **the title** — conventional-commit prefixes and words (``fix``, ``bug``, ``regression`` …; ``add``,
   ``support``, ``feature`` …; ``perf``, ``refactor``, ``ci``, ``deprecated`` …), the weakest signal.

The verdict: ``revert``; else ``breaking`` or ``feature`` when the project files it so (and not also as a fix);
else ``feature`` when most fail_to_pass tests need something new; else ``change`` for a swapped documented
exception or an inverted test; else ``bugfix`` (``unclear`` if reversed later) or ``change`` from the project's
words; else ``feature`` when any test needs something new; else ``change`` when most fail_to_pass tests have
their expectations rewritten, or under a refactoring / CI / speed-up title; else a fix title admits only with
evidence of a bug (a regression fix, or the base failing a test it already had, unchanged, in an unchanged
file, or two hand readings that each find the bug): **a title alone is ``unclear``**; else the title's feature;
else ``bugfix`` on two such readings; else ``unclear``. "Fix #12" names an issue.
Independently, **over-specified** lists the fail_to_pass tests that pin what only this fix could know: a
private name it introduced, or a message string (15+ characters) it added to the source, quoted in the test
verbatim or as a pattern's core — a different correct fix fails them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bench.gate.change_shapes import added_parameters, changed_expectations, grown_expectations, new_methods, \
    newly_valued
from bench.gate.contract_changes import all_test_ids, inverted_tests, swapped_exceptions
from bench.gate.project_words import NOTES_FILE, NotesChange, fragment_categories, notes_categories  # noqa: F401
from bench.gate.change_text import introduced_messages, introduced_names, quotes_a_message, test_functions, uses
from bench.spec.model import Judgement

JUDGE_VERSION = "6"
# "change": a deliberate change of behaviour, output or wording that repairs nothing (or that the project files
# under misc / docs / deprecation)
VERDICTS = ("bugfix", "feature", "breaking", "change", "revert", "unclear")
NEW_API_SHARE = 0.5  # this share of fail_to_pass tests needing a new public name makes a change a feature
CHANGED_EXPECTATION_SHARE = 0.5  # this share of fail_to_pass tests whose expectations are rewritten: a change
REPINNED_FLAGS = False  # a later commit rewriting the literals of a test the change added unseats its verdict

_TITLE_FIX = re.compile(r"^(fix|bugfix|hotfix)(\(.*?\))?!?:|\b(fix(e[sd])?|fixing|bug|regression|crash(es)?|"
                        r"incorrect(ly)?|wrong(ly)?|broken|error when|fails?)\b", re.IGNORECASE)
_TITLE_FEATURE = re.compile(r"^(feat|feature)(\(.*?\))?!?:|^(add|adds|added|support|implement|introduce|allow|"
                            r"enable)\b", re.IGNORECASE)
_TITLE_REFACTOR = re.compile(r"^(perf|refactor|chore|style|ci|build|docs?)(\(.*?\))?!?:|\b(speed[- ]?up|faster|"
                             r"optimi[sz]e|performance|refactor(ing)?|clean[- ]?up|ci|tox|gh actions?|"
                             r"github actions?|workflows?|deprecated|moderni[sz]e)\b", re.IGNORECASE)
_REVERT = re.compile(r"^\s*revert\b", re.IGNORECASE)
_MERGE_TITLE = re.compile(r"^Merge pull request #\d+ from [^/\s]+/(\S+)")


@dataclass(frozen=True)
class FixChange:
    title: str
    message: str
    changed_paths: tuple[str, ...]  # every path the change adds, modifies or deletes
    notes: tuple[NotesChange, ...]
    source_before: tuple[tuple[str, str], ...]  # (path, text) of the task's source files at base
    source_after: tuple[tuple[str, str], ...]
    tests_before: tuple[tuple[str, str], ...]  # (path, text) of the task's test files at base ("" if new)
    tests_after: tuple[tuple[str, str], ...]
    fail_to_pass: tuple[str, ...]
    # every test the gate saw, and those that failed with the fix every time (left out of its sets)
    observed: tuple[str, ...] = ()
    fix_side_failing: tuple[str, ...] = ()
    # what the history says (bench.gate.judge_history): changelog entries about the change ("category@where"),
    # tests whose expectation the change corrects in a regression of the same release, tests whose new
    # expectation a later commit sets back to the base's value, and tests whose literals a later commit rewrites
    entries: tuple[str, ...] = ()
    regressions: tuple[str, ...] = ()
    reversed_later: tuple[str, ...] = ()
    repinned_later: tuple[str, ...] = ()
    docs_after: tuple[tuple[str, str], ...] = ()  # (path, text) of the documentation files the change edits
    # two independent hand readings found a real bug, each stating its evidence (bench.gate.pr_readings)
    read_as_bug: bool = False


def judge(change: FixChange) -> Judgement:
    signals: list[str] = []
    if is_revert(change.title, change.message):
        return Judgement("revert", ("revert",), (), JUDGE_VERSION)
    project = fragment_categories(change.changed_paths) + notes_categories(change.notes)
    signals += [f"project:{category}" for category in project]
    signals += [f"project-entry:{entry}" for entry in change.entries]
    project += [entry.split("@", 1)[0] for entry in change.entries]
    tests = test_functions(change.tests_after, change.fail_to_pass)
    new_public, new_private = introduced_names(change.source_before, change.source_after)
    new_public |= new_methods(change.source_before, change.source_after)
    valued = newly_valued(change.source_before, change.source_after)
    parameters = added_parameters(change.source_before, change.source_after)
    needing = sorted(test_id for test_id, body in tests.items() if uses(body, new_public | valued | parameters))
    if needing:
        signals.append(f"new-api:{len(needing)}/{len(change.fail_to_pass)}")
    signals += [f"new-return-value:{name}" for name in sorted(valued) if any(uses(b, {name}) for b in tests.values())]
    signals += [f"new-parameter:{name}" for name in sorted(parameters)
                if any(uses(b, {name}) for b in tests.values())]
    shapes = contract_signals(change, tests)
    signals += shapes.signals
    title = title_category(readable_title(change.title, change.message))
    if title:
        signals.append(f"title:{title}")
    messages = introduced_messages(change.source_before, change.source_after)
    over = tuple(sorted(test_id for test_id, body in tests.items()
                        if uses(body, new_private) or quotes_a_message(body, messages)))
    total = len(change.fail_to_pass)
    shares = (len(needing) / total if total else 0.0, len(shapes.expectations) / total if total else 0.0)
    own = own_tests(change.tests_before, change.tests_after, change.observed or change.fail_to_pass)
    failing = tuple(sorted(set(own) & set(change.fix_side_failing)))
    if failing:
        signals.append(f"own-tests-failing-with-fix:{len(failing)}/{len(own)}")
    if change.read_as_bug:
        signals.append("read-twice:bug")
    verdict = _verdict(project, shares, title, shapes, read_as_bug=change.read_as_bug)
    return Judgement(verdict, tuple(signals), over, JUDGE_VERSION, failing, len(own))


@dataclass(frozen=True)
class Shapes:
    """What the tests and the source say beyond new API: the signals, the fail_to_pass tests whose expectations
    the change rewrites (not in a regression), whether it rewrites a contract, and the evidence of a bug."""

    signals: tuple[str, ...]
    expectations: tuple[str, ...]
    contract: bool
    evidence: bool
    reversed: bool


def contract_signals(change: FixChange, tests: dict[str, str]) -> Shapes:
    old = test_functions(change.tests_before, change.fail_to_pass)
    regression = set(change.regressions)
    literal, grown = changed_expectations(old, tests), grown_expectations(old, tests)
    everything = all_test_ids(change.tests_after)
    inverted = [t for t in inverted_tests(test_functions(change.tests_before, everything),
                                          test_functions(change.tests_after, everything)) if t not in regression]
    swapped = swapped_exceptions(change.source_before, change.source_after, change.docs_after)
    unchanged = unchanged_failing(change, old, tests)
    signals = []
    total = len(change.fail_to_pass)
    for name, found in (("changed-expectation", literal), ("grown-expectation", grown)):
        if found:
            signals.append(f"{name}:{len(found)}/{total}")
    signals += [f"inverted-test:{test_id}" for test_id in inverted]
    signals += [f"changed-exception:{swap}" for swap in swapped]
    if change.regressions:
        signals.append(f"regression-fix:{len(change.regressions)}/{total}")
    if unchanged:
        signals.append(f"unchanged-test-fails:{len(unchanged)}/{total}")
    signals += [f"reversed-later:{test_id}" for test_id in change.reversed_later]
    signals += [f"repinned-later:{test_id}" for test_id in change.repinned_later]
    expectations = tuple(t for t in sorted({*literal, *grown}) if t not in regression)
    return Shapes(tuple(signals), expectations, bool(inverted or swapped), bool(change.regressions or unchanged),
                  bool(change.reversed_later) or (REPINNED_FLAGS and bool(change.repinned_later)))


def unchanged_failing(change: FixChange, old: dict[str, str], new: dict[str, str]) -> tuple[str, ...]:
    """fail_to_pass tests the base already had, in a test file the change leaves as it was (and no conftest.py
    changed): the base fails the project's own unchanged test."""
    before, after = dict(change.tests_before), dict(change.tests_after)
    if any(path.rsplit("/", 1)[-1] == "conftest.py" for path in change.changed_paths):
        return ()
    return tuple(sorted(test_id for test_id, body in new.items() if old.get(test_id) == body
                        and before.get(test_id.split("::", 1)[0]) == after.get(test_id.split("::", 1)[0])))


def own_tests(before: tuple[tuple[str, str], ...], after: tuple[tuple[str, str], ...],
              test_ids: tuple[str, ...]) -> tuple[str, ...]:
    """The tests among ``test_ids`` that the change adds or whose function it changes (a parametrized test's
    cases count one each)."""
    old, new = test_functions(before, test_ids), test_functions(after, test_ids)
    return tuple(sorted(test_id for test_id, body in new.items() if old.get(test_id) != body))


def _verdict(project: list[str], shares: tuple[float, float], title: str, shapes: Shapes, *,
             read_as_bug: bool = False) -> str:
    """The project's words first, then the diff's shapes, then the title with evidence. ``shares``: of the
    fail_to_pass tests, those that need a new public name, parameter or return value, and those whose
    expectations an existing test rewrites (outside a regression)."""
    new_api_share, changed_share = shares
    if "breaking" in project:
        return "breaking"
    if "feature" in project and "bugfix" not in project:
        return "feature"
    if new_api_share >= NEW_API_SHARE:
        return "feature"  # the tests ask for what the base never had, whatever the change is filed as
    if shapes.contract:
        return "change"  # a documented exception swapped, or the project's own test inverted
    if "bugfix" in project:
        return "unclear" if shapes.reversed else "bugfix"
    if "change" in project:
        return "change"  # the project filed it, and not as a fix
    if new_api_share > 0:
        return "feature"  # some tests need what the base never had, and only a title calls it a fix
    if changed_share >= CHANGED_EXPECTATION_SHARE:
        return "change"  # the project's own tests asserted the old behaviour
    if title == "refactor":
        return "change"  # tests flip under a refactoring's, a CI change's or a speed-up's name
    if title == "bugfix":  # a title alone admits nothing: the history's evidence, or two readers', must back it
        return "bugfix" if (shapes.evidence or read_as_bug) and not shapes.reversed else "unclear"
    if title == "feature":
        return title
    # A title that names neither a fix nor a feature ("Preserve multi-line setext headings"): the two readers'
    # evidence of a bug, each against documented or clearly intended behaviour, is the only word there is.
    return "bugfix" if read_as_bug and not shapes.reversed else "unclear"


def is_revert(title: str, message: str) -> bool:
    """A revert, however its quoted title reads ("Revert "Fix …"" is no fix)."""
    return bool(_REVERT.match(title)) or "This reverts commit" in message


def readable_title(title: str, message: str) -> str:
    """A merge commit's "Merge pull request #N from user/branch" says nothing: the PR title GitHub puts in the
    message's body, and the branch's words, do."""
    merge = _MERGE_TITLE.match(title)
    if not merge:
        return title
    body = [line.strip() for line in message.splitlines()[1:] if line.strip()]
    return " ".join([body[0] if body else "", re.sub(r"[-_/]+", " ", merge.group(1))]).strip()


# "Fix #159: pass self to the key function": GitHub's closing keyword names an issue of any kind, not a bug.
_CLOSING_REFERENCE = re.compile(r"\b(fix(e[sd])?|close[sd]?|resolve[sd]?)\s+#\d+\s*[,:]?", re.IGNORECASE)


def title_category(title: str) -> str:
    title = _CLOSING_REFERENCE.sub("", title).strip()
    if _TITLE_REFACTOR.search(title) and not _TITLE_FIX.search(title):
        return "refactor"
    if _TITLE_FEATURE.search(title) and not re.match(r"^(fix|bugfix|hotfix)\b", title, re.IGNORECASE):
        return "feature"
    if _TITLE_FIX.search(title):
        return "bugfix"
    return ""


