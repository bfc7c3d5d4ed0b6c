"""Is a merged change a bug fix? The judgement admission records in a PR task's provenance.

The gate proves that tests flip from failing to passing; it cannot tell a fix from a feature whose new tests
fail only because the feature does not exist yet. This module reads what the project itself says and what the
change looks like, from a :class:`FixChange` (made from the repository by :mod:`bench.gate.judge_inputs`):

1. **revert** — the title starts with ``Revert`` or the message says ``This reverts commit`` (a quoted "fix"
   inside a revert's title is not a fix);
2. **the project's words** — changelog fragments the change adds (towncrier's ``changes/123.bugfix.rst``,
   ``*.feature``, ``*.breaking``, ``*.removal`` …) and entries it adds to a CHANGES/CHANGELOG/HISTORY file,
   classified by the heading they sit under (``Bug fixes``, ``Features``, ``Breaking changes`` …) or, under a
   version heading, by the entry's first word (``Fix …``, ``Add …``);
3. **the diff's shape** — public names the fix adds to the source files that the fail_to_pass tests use (a
   test that fails only because an attribute does not exist yet); an existing test whose assertion the change
   turns around (``assert f(x) == A`` becomes ``assert f(x) == B``);
4. **the title** — conventional-commit prefixes and words (``fix``, ``bug``, ``regression`` …; ``add``,
   ``support``, ``feature`` …; ``perf``, ``refactor`` …), the weakest signal.

The verdict: ``revert``; else from the project's words (``breaking`` > ``feature`` without any fix word >
``bugfix``); else ``feature`` when most fail_to_pass tests need a new public name, or when a refactoring title
comes with a turned-around assertion; else from the title; else ``unclear``. Independently, **over-specified**
lists the fail_to_pass tests that pin what only this fix could know: a private name it introduced, or a
message string (15+ characters) it added to the source, quoted in the test — a different correct fix fails them.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from bench.spec.model import Judgement

JUDGE_VERSION = "2"
VERDICTS = ("bugfix", "feature", "breaking", "revert", "unclear")
NEW_API_SHARE = 0.5  # this share of fail_to_pass tests needing a new public name makes a change a feature
MIN_MESSAGE_CHARS = 15

# Changelog fragment types (towncrier and look-alikes) -> category.
FRAGMENT_TYPES = {
    "bugfix": "bugfix", "bugfixes": "bugfix", "bug": "bugfix", "fix": "bugfix", "fixed": "bugfix",
    "feature": "feature", "features": "feature", "enhancement": "feature", "added": "feature",
    "improvement": "feature",
    "breaking": "breaking", "removal": "breaking", "removed": "breaking", "incompatible": "breaking",
}
# A generic "change" fragment (attrs' changelog.d/N.change.md) says nothing either way.
FRAGMENT_DIRS = frozenset({"changes", "changelog.d", "newsfragments", "news", ".changes", "changelog", "changes.d"})
NOTES_FILE = re.compile(r"^(changes|changelog|history|news|release[-_ ]?notes)([.-].*)?$", re.IGNORECASE)
_HEADING_WORDS = (
    ("breaking", re.compile(r"breaking|backwards?[- ]incompatible|removed|removals", re.IGNORECASE)),
    ("bugfix", re.compile(r"\bbug|\bfix", re.IGNORECASE)),
    ("feature", re.compile(r"feature|\badded\b|enhancement|improvement|\bnew\b|changed", re.IGNORECASE)),
)
_ENTRY_WORDS = (
    ("bugfix", re.compile(r"^(fix|fixe[sd]|fixing|correct|corrected|prevent|handle|avoid|resolve)\b", re.IGNORECASE)),
    ("feature", re.compile(r"^(add|added|adds|support|supports|introduce|implement|allow|new)\b", re.IGNORECASE)),
    ("breaking", re.compile(r"^(remove|removed|drop|dropped|rename|renamed)\b", re.IGNORECASE)),
)
_TITLE_FIX = re.compile(r"^(fix|bugfix|hotfix)(\(.*?\))?!?:|\b(fix(e[sd])?|fixing|bug|regression|crash(es)?|"
                        r"incorrect(ly)?|wrong(ly)?|broken|error when|fails?)\b", re.IGNORECASE)
_TITLE_FEATURE = re.compile(r"^(feat|feature)(\(.*?\))?!?:|^(add|adds|added|support|implement|introduce|allow|"
                            r"enable)\b", re.IGNORECASE)
_TITLE_REFACTOR = re.compile(r"^(perf|refactor|chore|style)(\(.*?\))?!?:|\b(speed[- ]?up|faster|optimi[sz]e|"
                             r"performance|refactor(ing)?|clean[- ]?up)\b", re.IGNORECASE)
_REVERT = re.compile(r"^\s*revert\b", re.IGNORECASE)
_MARKDOWN_HEADING = re.compile(r"^\s{0,3}#{1,6}\s*(.+?)\s*#*\s*$")
_RST_UNDERLINE = re.compile(r"^([-=~^*+#`'\"])\1{2,}\s*$")
_LABEL_LINE = re.compile(r"^[A-Za-z][A-Za-z /-]{2,40}:\s*$")  # "Bug fixes:" above its entries (marshmallow)
_MERGE_TITLE = re.compile(r"^Merge pull request #\d+ from [^/\s]+/(\S+)")
_VERSIONISH = re.compile(r"\d+\.\d+|unreleased", re.IGNORECASE)


@dataclass(frozen=True)
class NotesChange:
    """A changelog file the change touched: its text after the change and the 1-based lines it added."""

    path: str
    text: str
    added_lines: tuple[int, ...]


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


def judge(change: FixChange) -> Judgement:
    signals: list[str] = []
    if is_revert(change.title, change.message):
        return Judgement("revert", ("revert",), (), JUDGE_VERSION)
    project = fragment_categories(change.changed_paths) + notes_categories(change.notes)
    signals += [f"project:{category}" for category in project]
    tests = test_functions(change.tests_after, change.fail_to_pass)
    new_public, new_private = introduced_names(change.source_before, change.source_after)
    needing = sorted(test_id for test_id, body in tests.items() if _uses(body, new_public))
    if needing:
        signals.append(f"new-api:{len(needing)}/{len(change.fail_to_pass)}")
    reversed_tests = reversed_assertions(change.tests_before, change.tests_after)
    signals += [f"reversed-assertion:{name}" for name in reversed_tests]
    title = title_category(readable_title(change.title, change.message))
    if title:
        signals.append(f"title:{title}")
    messages = introduced_messages(change.source_before, change.source_after)
    over = tuple(sorted(test_id for test_id, body in tests.items()
                        if _uses(body, new_private) or any(message in body for message in messages)))
    share = len(needing) / len(change.fail_to_pass) if change.fail_to_pass else 0.0
    own = own_tests(change.tests_before, change.tests_after, change.observed or change.fail_to_pass)
    failing = tuple(sorted(set(own) & set(change.fix_side_failing)))
    if failing:
        signals.append(f"own-tests-failing-with-fix:{len(failing)}/{len(own)}")
    return Judgement(_verdict(project, share, bool(reversed_tests), title), tuple(signals), over, JUDGE_VERSION,
                     failing, len(own))


def own_tests(before: tuple[tuple[str, str], ...], after: tuple[tuple[str, str], ...],
              test_ids: tuple[str, ...]) -> tuple[str, ...]:
    """The tests among ``test_ids`` that the change adds or whose function it changes (a parametrized test's
    cases count one each)."""
    old, new = test_functions(before, test_ids), test_functions(after, test_ids)
    return tuple(sorted(test_id for test_id, body in new.items() if old.get(test_id) != body))


def _verdict(project: list[str], new_api_share: float, reversed_assertion: bool, title: str) -> str:
    if "breaking" in project:
        return "breaking"
    if "feature" in project and "bugfix" not in project:
        return "feature"
    if "bugfix" in project:
        return "bugfix"
    if new_api_share >= NEW_API_SHARE:
        return "feature"
    if title == "refactor" and reversed_assertion:
        return "feature"  # a deliberate change of behaviour, not a repair
    if title in ("bugfix", "feature"):
        return title
    return "unclear"


def is_revert(title: str, message: str) -> bool:
    """A revert, however its quoted title reads ("Revert "Fix …"" is no fix)."""
    return bool(_REVERT.match(title)) or "This reverts commit" in message


def fragment_categories(paths: tuple[str, ...]) -> list[str]:
    found = []
    for path in paths:
        parts = path.split("/")
        if len(parts) < 2 or parts[-2].lower() not in FRAGMENT_DIRS:
            continue
        for token in parts[-1].lower().split(".")[1:]:
            if token in FRAGMENT_TYPES:
                found.append(FRAGMENT_TYPES[token])
                break
    return found


def notes_categories(notes: tuple[NotesChange, ...]) -> list[str]:
    found = []
    for change in notes:
        lines = change.text.splitlines()
        for number in change.added_lines:
            entry = lines[number - 1].strip().lstrip("-*+ ").strip() if 0 < number <= len(lines) else ""
            if not entry or _is_heading(lines, number - 1) or _RST_UNDERLINE.match(entry):
                continue
            category = _heading_category(lines, number - 1) or _first_match(_ENTRY_WORDS, entry)
            if category:
                found.append(category)
    return found


def _is_heading(lines: list[str], index: int) -> bool:
    if _MARKDOWN_HEADING.match(lines[index]) or _LABEL_LINE.match(lines[index].strip()):
        return True
    return index + 1 < len(lines) and bool(_RST_UNDERLINE.match(lines[index + 1])) and bool(lines[index].strip())


def _heading_category(lines: list[str], index: int) -> str:
    """The category of the nearest heading above line ``index``; "" when that heading names a version."""
    for above in range(index - 1, -1, -1):
        if not _is_heading(lines, above):
            continue
        text = _MARKDOWN_HEADING.match(lines[above])
        heading = text.group(1) if text else lines[above].strip().rstrip(":")
        if _VERSIONISH.search(heading):
            return ""
        return _first_match(_HEADING_WORDS, heading)
    return ""


def _first_match(table, text: str) -> str:
    return next((category for category, pattern in table if pattern.search(text)), "")


def readable_title(title: str, message: str) -> str:
    """A merge commit's "Merge pull request #N from user/branch" says nothing: the PR title GitHub puts in the
    message's body, and the branch's words, do."""
    merge = _MERGE_TITLE.match(title)
    if not merge:
        return title
    body = [line.strip() for line in message.splitlines()[1:] if line.strip()]
    return " ".join([body[0] if body else "", re.sub(r"[-_/]+", " ", merge.group(1))]).strip()


def title_category(title: str) -> str:
    if _TITLE_REFACTOR.search(title) and not _TITLE_FIX.search(title):
        return "refactor"
    if _TITLE_FEATURE.search(title) and not re.match(r"^(fix|bugfix|hotfix)\b", title, re.IGNORECASE):
        return "feature"
    if _TITLE_FIX.search(title):
        return "bugfix"
    return ""


def _parse(text: str) -> ast.Module | None:
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError):
        return None


def defined_names(text: str) -> set[str]:
    """Module-level functions, classes and assigned names, and the methods and attributes classes define."""
    tree = _parse(text)
    if tree is None:
        return set()
    names: set[str] = set()
    for node in tree.body:
        names |= _bound_by(node)
        if isinstance(node, ast.ClassDef):
            for member in node.body:
                names |= _bound_by(member)
    for node in ast.walk(tree):  # instance attributes: self.x = ...
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) and isinstance(node.value, ast.Name) \
                and node.value.id == "self":
            names.add(node.attr)
    return names


def _bound_by(node: ast.AST) -> set[str]:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {node.name}
    targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
    return {t.id for target in targets for t in ast.walk(target) if isinstance(t, ast.Name)}


def introduced_names(before: tuple[tuple[str, str], ...], after: tuple[tuple[str, str], ...]) -> tuple[set, set]:
    """(public, private) names the change defines in the source files that none of them defined before."""
    old = set().union(*(defined_names(text) for _, text in before)) if before else set()
    new = set().union(*(defined_names(text) for _, text in after)) if after else set()
    added = {name for name in new - old if len(name) > 2 and not name.startswith("__")}
    return {n for n in added if not n.startswith("_")}, {n for n in added if n.startswith("_")}


def introduced_messages(before: tuple[tuple[str, str], ...], after: tuple[tuple[str, str], ...]) -> set[str]:
    """String literals (long enough to be a message) in the source after the change and nowhere before."""
    def literals(pairs) -> set[str]:
        found = set()
        for _, text in pairs:
            tree = _parse(text)
            for node in ast.walk(tree) if tree is not None else ():
                if isinstance(node, ast.Constant) and isinstance(node.value, str):
                    found.update(part for part in re.split(r"\{[^}]*\}|%[sdr]", node.value)
                                 if len(part.strip()) >= MIN_MESSAGE_CHARS)
        return found

    return literals(after) - literals(before)


def test_functions(tests: tuple[tuple[str, str], ...], test_ids: tuple[str, ...]) -> dict[str, str]:
    """test id -> the source of its test function (with its class's own lines when it is a method)."""
    sources = dict(tests)
    parsed: dict[str, tuple[ast.Module | None, list[str]]] = {}
    bodies = {}
    for test_id in test_ids:
        path, _, rest = test_id.partition("::")
        names = [part.split("[", 1)[0] for part in rest.split("::")]
        if path not in parsed:  # one parse per file, however many of its tests are asked for
            text = sources.get(path, "")
            parsed[path] = (_parse(text), text.splitlines(keepends=True))
        tree, lines = parsed[path]
        node = _find(tree, names) if tree is not None else None
        if node is not None:  # the node's own text, as ast.get_source_segment gives it (offsets count bytes)
            segment = [line.encode("utf-8") for line in lines[node.lineno - 1 : node.end_lineno]]
            if node.lineno == node.end_lineno:
                segment = [segment[0][node.col_offset : node.end_col_offset]]
            else:
                segment[0], segment[-1] = segment[0][node.col_offset :], segment[-1][: node.end_col_offset]
            bodies[test_id] = b"".join(segment).decode("utf-8", "replace")
    return bodies


def _find(tree: ast.AST, names: list[str]) -> ast.AST | None:
    scope: ast.AST | None = tree
    for name in names:
        body = getattr(scope, "body", [])
        scope = next((n for n in body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                      and n.name == name), None)
        if scope is None:
            return None
    return scope


def _uses(body: str, names: set[str]) -> bool:
    if not names or not body:
        return False
    tree = _parse(body)
    if tree is None:
        return False
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} | \
        {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)} | \
        {n.arg for n in ast.walk(tree) if isinstance(n, ast.keyword) and n.arg}
    return bool(used & names)


def reversed_assertions(before: tuple[tuple[str, str], ...], after: tuple[tuple[str, str], ...]) -> list[str]:
    """Tests present before and after whose ``assert <left> <op> <right>`` keeps its left side and operator
    but changes its right side: the old expectation turned around."""
    old, new = _assertions(before), _assertions(after)
    found = []
    for test, expectations in sorted(new.items()):
        previous = old.get(test, {})
        if any(key in previous and previous[key] != value and value not in previous.values()
               for key, value in expectations.items()):
            found.append(test)
    return found


def _assertions(files: tuple[tuple[str, str], ...]) -> dict[str, dict[str, str]]:
    found: dict[str, dict[str, str]] = {}
    for path, text in files:
        tree = _parse(text)
        for function in ast.walk(tree) if tree is not None else ():
            if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) or not function.name.startswith("test"):
                continue
            pairs = {}
            for node in ast.walk(function):
                if isinstance(node, ast.Assert) and isinstance(node.test, ast.Compare) and len(node.test.ops) == 1:
                    key = f"{ast.unparse(node.test.left)} {type(node.test.ops[0]).__name__}"
                    pairs.setdefault(key, ast.unparse(node.test.comparators[0]))
            if pairs:
                found[f"{path}::{function.name}"] = pairs
    return found
