"""The fixed, lazily generated pool of candidate programs the scripted trajectories are built from.

Order: partial fixes (the initial program with a proper subset of the initial-to-reference line hunks,
largest subsets first), then single-site mutants of the reference and of the initial program, then a partial
fix or the initial program plus one more mutation. Mutants come in an order seeded by the task id, so which
candidates a task gets is fixed by its files, never chosen by hand.
"""

from __future__ import annotations

import difflib
import hashlib
import itertools
from typing import Iterator

from bench.model.repair_candidates import apply_mutation, enumerate_mutations, parses
from bench.study._scripted_host import Files, SyntheticTask

MAX_HUNK_SUBSETS = 30

Candidate = tuple[str, Files]  # (label, files)


def candidate_pool(task: SyntheticTask) -> Iterator[Candidate]:
    """Candidate programs in a fixed order, each different from the initial and the reference program.

    Partial fixes come first (what a model on its way to the fix emits), then first-order mutants of the
    reference and of the initial program, then second-order programs: a partial fix or the initial program
    with one more mutation. The chain is lazy: only what is needed is ever run.
    """
    seen = {task.initial, task.reference}
    partials = list(_partial_fixes(task))
    sources = itertools.chain(
        partials,
        _mutants(task, task.reference, "reference"),
        _mutants(task, task.initial, "initial"),
        itertools.chain.from_iterable(_mutants(task, files, label) for label, files in partials),
        itertools.chain.from_iterable(_mutants(task, files, label) for label, files in _mutants(task, task.initial, "initial")),
    )
    for candidate in sources:
        if candidate[1] not in seen:
            seen.add(candidate[1])
            yield candidate


def _partial_fixes(task: SyntheticTask) -> Iterator[Candidate]:
    """The initial program with a proper, non-empty subset of the fix's hunks; largest subsets first."""
    initial, reference = dict(task.initial), dict(task.reference)
    hunks = [(path, opcode) for path in task.source_files for opcode in _hunks(initial[path], reference[path])]
    subsets = (
        subset
        for size in range(len(hunks) - 1, 0, -1)
        for subset in itertools.combinations(range(len(hunks)), size)
    )
    for subset in itertools.islice(subsets, MAX_HUNK_SUBSETS):
        files = dict(initial)
        for path in task.source_files:
            applied = [hunks[i][1] for i in subset if hunks[i][0] == path]
            files[path] = _apply_hunks(initial[path], reference[path], applied)
        label = f"partial fix: hunks {', '.join(str(i + 1) for i in subset)} of {len(hunks)}"
        yield label, tuple(sorted(files.items()))


def _hunks(old: str, new: str) -> list[tuple[str, int, int, int, int]]:
    """Line-level changes; a replacement of n lines by n lines counts as n one-line hunks."""
    matcher = difflib.SequenceMatcher(
        None, old.splitlines(keepends=True), new.splitlines(keepends=True), autojunk=False
    )
    hunks = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        if tag == "replace" and i2 - i1 == j2 - j1:
            hunks += [(tag, i1 + k, i1 + k + 1, j1 + k, j1 + k + 1) for k in range(i2 - i1)]
        else:
            hunks.append((tag, i1, i2, j1, j2))
    return hunks


def _apply_hunks(old: str, new: str, opcodes: list[tuple]) -> str:
    old_lines, new_lines = old.splitlines(keepends=True), new.splitlines(keepends=True)
    result, cursor = [], 0
    for _, i1, i2, j1, j2 in sorted(opcodes, key=lambda opcode: opcode[1]):
        result += old_lines[cursor:i1] + new_lines[j1:j2]
        cursor = i2
    return "".join(result + old_lines[cursor:])


def _mutants(task: SyntheticTask, program: Files, origin: str) -> Iterator[Candidate]:
    found = [mutation for path, text in program for mutation in enumerate_mutations(path, text)]

    def seeded(mutation) -> str:
        return hashlib.sha256(f"{task.task_id}\0{origin}\0{mutation.key}".encode("utf-8")).hexdigest()

    files = dict(program)
    for mutation in sorted(found, key=seeded):
        text = apply_mutation(files[mutation.path], mutation)
        if parses(text):
            yield f"{origin} + {mutation.describe()}", tuple(sorted(dict(files, **{mutation.path: text}).items()))


def cosmetic_variant(candidate: Candidate, revision: int) -> Candidate:
    """The same program with a trailing comment: different bytes, identical behaviour and line numbers."""
    label, files = candidate
    first_path = files[0][0]
    changed = tuple(
        (path, text + ("" if text.endswith("\n") else "\n") + f"# revision {revision}\n" if path == first_path
         else text)
        for path, text in files
    )
    return f"{label} (+ comment, revision {revision})", changed
