"""Is a merged change a bug fix? The judgement admission records in a PR task's provenance.

The gate proves that tests flip from failing to passing; it cannot tell a fix from a feature whose new tests
fail only because the feature does not exist yet. This module reads what the project itself says and what the
change looks like, from a :class:`FixChange` (made from the repository by :mod:`bench.gate.judge_inputs`):

1. **revert** — the title starts with ``Revert`` or the message says ``This reverts commit`` (a quoted "fix"
   inside a revert's title is not a fix);
2. **the project's words** (:mod:`bench.gate.project_words`) — changelog fragments and CHANGES entries the
   change adds, filed as bug fix, feature, breaking, or apart from those (misc, docs, deprecation);
3. **the diff's shape** (:mod:`bench.gate.change_shapes`) — what the fail_to_pass tests need that the base did
   not have: a public name the fix adds, a parameter an existing function gains, a value a function that
   returned nothing now returns; and existing tests the change rewrites in their literals alone (the project's
   own test asserted the old output or message);
4. **the title** — conventional-commit prefixes and words (``fix``, ``bug``, ``regression`` …; ``add``,
   ``support``, ``feature`` …; ``perf``, ``refactor``, ``ci``, ``deprecated`` …), the weakest signal.

The verdict: ``revert``; else ``breaking`` or ``feature`` when the project files it so (and not also as a fix);
else ``feature`` when most fail_to_pass tests need something new, whatever it is filed as; else ``bugfix`` or
``change`` from the project's words; else ``feature`` when any needs something new; else ``change`` when most fail_to_pass tests are existing tests rewritten in
their literals, or under a refactoring / CI / speed-up title; else the title's fix or feature; else
``unclear``. A title's "fix" counts only when no shape speaks against it, and "Fix #12" names an issue, not a
bug.
Independently, **over-specified** lists the fail_to_pass tests that pin what only this fix could know: a
private name it introduced, or a message string (15+ characters) it added to the source, quoted in the test
verbatim or as a pattern's core — a different correct fix fails them.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from bench.gate.change_shapes import added_parameters, changed_expectations, new_methods, newly_valued, \
    parse_or_none as _parse
from bench.gate.project_words import NOTES_FILE, NotesChange, fragment_categories, notes_categories  # noqa: F401
from bench.spec.model import Judgement

JUDGE_VERSION = "3"
# "change": a deliberate change of behaviour, output or wording that repairs nothing (or that the project files
# under misc / docs / deprecation)
VERDICTS = ("bugfix", "feature", "breaking", "change", "revert", "unclear")
NEW_API_SHARE = 0.5  # this share of fail_to_pass tests needing a new public name makes a change a feature
CHANGED_EXPECTATION_SHARE = 0.5  # this share of fail_to_pass tests rewritten in their literals alone: a change
MIN_MESSAGE_CHARS = 15

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


def judge(change: FixChange) -> Judgement:
    signals: list[str] = []
    if is_revert(change.title, change.message):
        return Judgement("revert", ("revert",), (), JUDGE_VERSION)
    project = fragment_categories(change.changed_paths) + notes_categories(change.notes)
    signals += [f"project:{category}" for category in project]
    tests = test_functions(change.tests_after, change.fail_to_pass)
    new_public, new_private = introduced_names(change.source_before, change.source_after)
    new_public |= new_methods(change.source_before, change.source_after)
    valued = newly_valued(change.source_before, change.source_after)
    parameters = added_parameters(change.source_before, change.source_after)
    needing = sorted(test_id for test_id, body in tests.items() if _uses(body, new_public | valued | parameters))
    if needing:
        signals.append(f"new-api:{len(needing)}/{len(change.fail_to_pass)}")
    signals += [f"new-return-value:{name}" for name in sorted(valued) if any(_uses(b, {name}) for b in tests.values())]
    signals += [f"new-parameter:{name}" for name in sorted(parameters)
                if any(_uses(b, {name}) for b in tests.values())]
    changed = changed_expectations(test_functions(change.tests_before, change.fail_to_pass), tests)
    if changed:
        signals.append(f"changed-expectation:{len(changed)}/{len(change.fail_to_pass)}")
    title = title_category(readable_title(change.title, change.message))
    if title:
        signals.append(f"title:{title}")
    messages = introduced_messages(change.source_before, change.source_after)
    over = tuple(sorted(test_id for test_id, body in tests.items()
                        if _uses(body, new_private) or _quotes_a_message(body, messages)))
    total = len(change.fail_to_pass)
    shares = (len(needing) / total if total else 0.0, len(changed) / total if total else 0.0)
    own = own_tests(change.tests_before, change.tests_after, change.observed or change.fail_to_pass)
    failing = tuple(sorted(set(own) & set(change.fix_side_failing)))
    if failing:
        signals.append(f"own-tests-failing-with-fix:{len(failing)}/{len(own)}")
    return Judgement(_verdict(project, shares, title), tuple(signals), over, JUDGE_VERSION,
                     failing, len(own))


def own_tests(before: tuple[tuple[str, str], ...], after: tuple[tuple[str, str], ...],
              test_ids: tuple[str, ...]) -> tuple[str, ...]:
    """The tests among ``test_ids`` that the change adds or whose function it changes (a parametrized test's
    cases count one each)."""
    old, new = test_functions(before, test_ids), test_functions(after, test_ids)
    return tuple(sorted(test_id for test_id, body in new.items() if old.get(test_id) != body))


def _verdict(project: list[str], shares: tuple[float, float], title: str) -> str:
    """The project's words first, then the diff's shapes, then the title. ``shares``: of the fail_to_pass tests,
    those that need a new public name, parameter or return value, and those rewritten in their literals alone."""
    new_api_share, changed_share = shares
    if "breaking" in project:
        return "breaking"
    if "feature" in project and "bugfix" not in project:
        return "feature"
    if new_api_share >= NEW_API_SHARE:
        return "feature"  # the tests ask for what the base never had, whatever the change is filed as
    if "bugfix" in project:
        return "bugfix"
    if "change" in project:
        return "change"  # the project filed it, and not as a fix
    if new_api_share > 0:
        return "feature"  # some tests need what the base never had, and only a title calls it a fix
    if changed_share >= CHANGED_EXPECTATION_SHARE:
        return "change"  # the project's own tests asserted the old behaviour
    if title == "refactor":
        return "change"  # tests flip under a refactoring's, a CI change's or a speed-up's name
    if title in ("bugfix", "feature"):
        return title
    return "unclear"


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


_REGEX_EDGES = re.compile(r"^(\^|\.\*|\\A)+|(\$|\.\*|\\Z)+$")


_REGEX_CALLS = frozenset({"assertRaisesRegex", "assertRaisesRegexp", "assertWarnsRegex", "assertRegex",
                          "assertRegexpMatches"})


def _quotes_a_message(body: str, messages: set[str]) -> bool:
    """The test quotes one of ``messages``: verbatim, or as the core of a pattern it matches against
    (``match=".*should be str.*"``, ``assertRaisesRegex``, or a literal with regex anchors at its ends)."""
    if not messages or not body:
        return False
    if any(message in body for message in messages):
        return True
    tree = _parse(body)
    cores = {re.sub(r"\\(.)", r"\1", _REGEX_EDGES.sub("", pattern)) for pattern in _patterns(tree)} if tree else set()
    return any(len(core) >= MIN_MESSAGE_CHARS and core in message for core in cores for message in messages)


def _patterns(tree: ast.AST) -> set[str]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg == "match":
            found |= _strings(node.value)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _REGEX_CALLS:
            found |= {text for arg in node.args[1:2] for text in _strings(arg)}
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and _REGEX_EDGES.search(node.value):
            found.add(node.value)
    return found


def _strings(node: ast.AST) -> set[str]:
    return {n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)}


def test_functions(tests: tuple[tuple[str, str], ...], test_ids: tuple[str, ...]) -> dict[str, str]:
    """test id -> the source of its test function with its decorators (a parametrized test's cases are part of
    what it asserts), or of its class when the id names a class."""
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
            first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", ())])
            segment = [line.encode("utf-8") for line in lines[first - 1 : node.end_lineno]]
            if first == node.end_lineno:
                segment = [segment[0][node.col_offset : node.end_col_offset]]
            else:  # the decorators and the def line lose their indentation, so the text parses on its own
                header = node.lineno - first + 1
                segment = [_unindent(line, node.col_offset) for line in segment[:header]] + segment[header:]
                segment[-1] = segment[-1][: node.end_col_offset]
            bodies[test_id] = b"".join(segment).decode("utf-8", "replace")
    return bodies


def _unindent(line: bytes, width: int) -> bytes:
    return line if line[:width].strip() else line[width:]


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
