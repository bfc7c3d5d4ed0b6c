"""``repairer/<strategy>``: a deterministic, search-based, non-LLM program repairer.

Each turn it proposes exactly one candidate program: the *base* program (the editable files as they were at
turn 1) with one single-site mutation from :mod:`bench.model.repair_candidates` applied. It emits the
SEARCH/REPLACE edit that turns the *current* workspace into that candidate, which also reverts the previous
turn's try. It never proposes the same candidate twice in one trajectory.

Which candidate comes first is decided by fault localisation on the harness's feedback text:

1. distance (in lines) from the candidate to the nearest ``path.py:LINE`` of an editable file named in the
   feedback (tracebacks);
2. whether the candidate's enclosing function is named in the feedback (failing test ids, assertion text);
3. a seeded tie-break: sha256 of (task id, sample, condition, candidate key) — never Python's ``hash()``.

Evidence accumulates over the trajectory: the feedback of every turn so far is read together (each turn's
program is the base plus one line-preserving mutation, so line numbers stay comparable). The same code runs
in every feedback condition. When the feedback carries no locations and no names (e.g.
"3 tests fail"), keys 1 and 2 are equal for every candidate and the order is the seeded, uniform permutation.
Any difference between conditions is therefore measured, not authored.

The model remembers, per trajectory (task id, sample, condition), which candidates it proposed; a repeated
request for an earlier turn forgets later turns, so replaying a trajectory gives the same texts. Candidates
named in earlier assistant messages (the ``[candidate …]`` line of each reply) are also treated as tried,
so a loop that replays the conversation works without that memory.
"""

from __future__ import annotations

import difflib
import hashlib
import re
import threading
from dataclasses import dataclass

from bench.errors import UsageError
from bench.model.repair_candidates import Mutation, apply_mutation, enumerate_mutations, parses
from bench.model.protocol import Completion, Message, ModelParams, RequestContext
from bench.model.registry import register

STRATEGIES = ("ast",)
_NO_LOCATION = 10**9
_CANDIDATE_CACHE_SIZE = 32  # bases whose candidate lists are kept (one per task being worked on)
_LOCATION = re.compile(r"([\w./\\-]*\w\.py):(\d+)")
_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")
_CANDIDATE_LINE = re.compile(r"^\[candidate (\S+)\]", re.MULTILINE)

Files = tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Localisation:
    """What the feedback text says about where the fault is."""

    lines: tuple[tuple[str, int], ...]  # (editable path, line) named in tracebacks
    identifiers: frozenset[str]

    def distance(self, mutation: Mutation) -> int:
        distances = [abs(mutation.lineno - line) for path, line in self.lines if path == mutation.path]
        return min(distances, default=_NO_LOCATION)

    def names(self, function: str) -> bool:
        if not function:
            return False
        if function in self.identifiers:
            return True
        # test ids such as ``test_clamp_upper`` name the function they exercise
        return len(function) >= 3 and any(function in identifier for identifier in self.identifiers)


def localise(feedback: str, editable_paths: tuple[str, ...]) -> Localisation:
    lines = []
    for raw_path, line in _LOCATION.findall(feedback):
        normalised = raw_path.replace("\\", "/")
        for path in editable_paths:
            if normalised == path or normalised.endswith("/" + path):
                lines.append((path, int(line)))
    return Localisation(tuple(sorted(set(lines))), frozenset(_IDENTIFIER.findall(feedback)))


def tie_break(task_id: str, sample: int, condition: str, key: str) -> int:
    material = f"{task_id}\0{sample}\0{condition}\0{key}".encode("utf-8")
    return int.from_bytes(hashlib.sha256(material).digest()[:8], "big")


def rank(
    candidates: tuple[Mutation, ...], context: RequestContext, paths: tuple[str, ...], evidence: str | None = None
) -> list[Mutation]:
    """Candidates best first, as explained in the module docstring; ``evidence`` defaults to the feedback."""
    where = localise(context.feedback if evidence is None else evidence, paths)

    def order(mutation: Mutation) -> tuple[int, int, int, str]:
        return (
            where.distance(mutation),
            0 if where.names(mutation.function) else 1,
            tie_break(context.task_id, context.sample, context.condition, mutation.key),
            mutation.key,
        )

    return sorted(candidates, key=order)


def render_search_replace(path: str, old: str, new: str) -> str:
    """SEARCH/REPLACE blocks turning ``old`` into ``new``, one per changed region, applied in order.

    Each block's SEARCH is taken from the content left by the blocks before it (the order the applier uses)
    and is widened by unchanged lines until it occurs exactly once there.
    """
    if old == new:
        return ""
    old_lines, new_lines = old.splitlines(keepends=True), new.splitlines(keepends=True)
    matcher = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False)
    current = list(old_lines)
    shift = 0  # how many lines earlier blocks added to (or removed from) the current content
    blocks = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        first, stop = i1 + shift, i2 + shift
        start, end = _unique_window("".join(current), current, first, stop)
        replace = current[start:first] + new_lines[j1:j2] + current[stop:end]
        blocks.append(_block(path, "".join(current[start:end]), "".join(replace)))
        current[first:stop] = new_lines[j1:j2]
        shift += (j2 - j1) - (i2 - i1)
    return "\n".join(blocks)


def render_no_op(path: str, text: str, line_index: int) -> str:
    """A block whose SEARCH and REPLACE are both the (uniquely widened) line ``line_index`` of ``text``."""
    lines = text.splitlines(keepends=True)
    line_index = max(0, min(line_index, len(lines) - 1))
    start, stop = _unique_window(text, lines, line_index, line_index + 1)
    search = "".join(lines[start:stop])
    return _block(path, search, search)


def _unique_window(text: str, lines: list[str], first: int, stop: int) -> tuple[int, int]:
    """Line range around ``lines[first:stop]`` whose text is non-blank and occurs exactly once in ``text``."""
    before = after = 0
    while True:
        search = "".join(lines[first - before : stop + after])
        if search.strip() and _occurrences(text, search) == 1:
            return first - before, stop + after
        if first - before == 0 and stop + after >= len(lines):
            return 0, len(lines)  # the whole file: unique by definition
        before = min(before + 1, first)
        after = min(after + 1, len(lines) - stop)


def _block(path: str, search: str, replace: str) -> str:
    return f"{path}\n<<<<<<< SEARCH\n{_block_body(search)}=======\n{_block_body(replace)}>>>>>>> REPLACE\n"


def _block_body(text: str) -> str:
    return text if not text or text.endswith("\n") else text + "\n"


def _occurrences(haystack: str, needle: str) -> int:
    count, start = 0, haystack.find(needle)
    while start != -1:
        count += 1
        start = haystack.find(needle, start + 1)
    return count


@register("repairer")
class Repairer:
    """A :class:`bench.model.protocol.Model` proposing one single-mutation candidate per turn."""

    deterministic = True

    def __init__(self, name: str = "ast", params: ModelParams | None = None) -> None:
        strategy = name or "ast"
        if strategy not in STRATEGIES:
            raise UsageError(f"unknown repairer strategy {strategy!r}; known: {', '.join(STRATEGIES)}")
        self.model_id = f"repairer/{strategy}"
        self.params = params or ModelParams()
        self._lock = threading.Lock()
        self._tried: dict[tuple[str, int, str], list[tuple[int, str]]] = {}
        self._feedback: dict[tuple[str, int, str], list[tuple[int, str]]] = {}
        self._bases: dict[tuple[str, int, str], Files] = {}
        self._candidates: dict[Files, tuple[Mutation, ...]] = {}

    def complete(
        self, messages: tuple[Message, ...], params: ModelParams, context: RequestContext
    ) -> Completion:
        trajectory = (context.task_id, context.sample, context.condition)
        with self._lock:
            base = self._base(trajectory, context)
            tried = self._tried_before(trajectory, context.turn, messages)
            evidence = self._evidence(trajectory, context)
            candidates = self._candidates_of(base)
        paths = tuple(path for path, _ in base)
        untried = tuple(m for m in candidates if m.key not in tried)
        chosen = self._first_valid(rank(untried, context, paths, evidence), base)
        if chosen is None:
            # A reply without edits: the harness scores the turn invalid_edit and the workspace stays as is.
            text = f"{self.model_id}: no untried candidate remains ({len(candidates)} candidates in all).\n"
            return Completion(text=text, served_model=self.model_id)
        with self._lock:
            self._tried.setdefault(trajectory, []).append((context.turn, chosen.key))
        text = self._response(chosen, base, dict(context.source_files), len(untried))
        return Completion(text=text, served_model=self.model_id)

    def _base(self, trajectory: tuple[str, int, str], context: RequestContext) -> Files:
        if context.base_files:
            base = tuple(sorted(context.base_files))
        elif context.turn <= 1 or trajectory not in self._bases:
            base = tuple(sorted(context.source_files))
        else:
            base = self._bases[trajectory]
        self._bases[trajectory] = base
        return base

    def _tried_before(self, trajectory: tuple[str, int, str], turn: int, messages: tuple[Message, ...]) -> set[str]:
        # A request for turn t forgets what was proposed at turns >= t: replays are reproducible.
        kept = [(t, key) for t, key in self._tried.get(trajectory, []) if t < turn]
        self._tried[trajectory] = kept
        tried = {key for _, key in kept}
        for message in messages:
            if message.role == "assistant":
                tried.update(_CANDIDATE_LINE.findall(message.content))
        return tried

    def _evidence(self, trajectory: tuple[str, int, str], context: RequestContext) -> str:
        """All feedback of this trajectory up to this turn, oldest first."""
        kept = [(t, text) for t, text in self._feedback.get(trajectory, []) if t < context.turn]
        kept.append((context.turn, context.feedback))
        self._feedback[trajectory] = kept
        return "\n".join(text for _, text in kept)

    def _first_valid(self, ranked: list[Mutation], base: Files) -> Mutation | None:
        """The best candidate whose program parses (the operators keep syntax valid; this is a guard)."""
        texts = dict(base)
        for mutation in ranked:
            if parses(apply_mutation(texts[mutation.path], mutation)):
                return mutation
        return None

    def _candidates_of(self, base: Files) -> tuple[Mutation, ...]:
        if base not in self._candidates:
            if len(self._candidates) >= _CANDIDATE_CACHE_SIZE:
                self._candidates.pop(next(iter(self._candidates)))  # the oldest base
            found: list[Mutation] = []
            for path, text in base:
                if path.endswith(".py"):
                    found.extend(enumerate_mutations(path, text))
            self._candidates[base] = tuple(found)
        return self._candidates[base]

    def _response(self, chosen: Mutation, base: Files, current: dict[str, str], untried: int) -> str:
        target = dict(base)
        target[chosen.path] = apply_mutation(target[chosen.path], chosen)
        blocks = [
            render_search_replace(path, current.get(path, base_text), target[path])
            for path, base_text in base
        ]
        header = (
            f"{self.model_id}: trying {chosen.describe()} ({untried - 1} untried candidates left).\n"
            f"[candidate {chosen.key}]\n\n"
        )
        return header + "\n".join(block for block in blocks if block)
