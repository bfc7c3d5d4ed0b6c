"""The user message of a prompt under a context policy or a token budget (bench.attempt.context).

Sections keep the order of the default prompt — task line, specification, editable files, failing tests —
and, for ``retrieval``, read-only code before the tests. What each section holds is decided by
:func:`bench.attempt.context.fill` from the blocks offered in priority order.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

from bench.attempt import failing_tests
from bench.attempt.code_map import map_code, range_text
from bench.attempt.context import (PARTIAL_NOTE, Block, ContextSettings, SourceFile, Shown, definition_block, fill,
                                   load_sources, outline_block, policy_blocks, render_code, whole_file_block)
from bench.attempt.localize import imported_names, localize
from bench.spec.model import import_packages


@dataclass(frozen=True)
class ContextMessage:
    text: str
    shown: Shown
    files: tuple[SourceFile, ...]  # editable first, then read-only ones


def context_message(spec, workspace: Path, *, spec_text: str, system: str, settings: ContextSettings,
                    failure_texts: tuple[str, ...], read, count_prompt=None, count=None) -> ContextMessage:
    """``read(workspace, path)`` -> text or None; ``count_prompt(system, user)`` and ``count(text)`` are the
    tokenizer's (only used with a budget)."""
    files = load_sources(workspace, spec.source_files, read, editable=True)
    tests = _test_blocks(spec, workspace, read)
    failing_source = "".join(b.text for b in tests)
    reached, chunks = (), ()
    if settings.policy == "localized":
        packages = frozenset(import_packages(spec.source_files))
        imports = frozenset().union(*(imported_names(read(workspace, path) or "", packages)
                                      for path in failing_tests.group_by_file(spec.fail_to_pass)))
        maps = {f.path: f.code for f in files if f.code is not None}
        reached = localize(maps, failing_source=failing_source, test_imports=imports, failure_texts=failure_texts)
    if settings.policy == "retrieval" or (settings.policy == "localized" and settings.budget is not None):
        files, chunks = _ranked(spec, workspace, files, read, failing_source + "\n".join(failure_texts),
                                whole_repository=settings.policy == "retrieval")
    offered = ([Block("", "<spec>", text=spec_text.strip())] if spec_text.strip() else []) + tests
    offered += policy_blocks(settings.policy, files, reached, chunks, settings.budget is not None)
    listed = len(spec.fail_to_pass) if settings.budget is None else min(len(spec.fail_to_pass), _MAX_IDS)
    render = _renderer(spec, files, listed, len(offered), settings)
    sources = {f.path: f.text or "" for f in files}

    @functools.cache  # a block's price is asked for on every refit and second chance
    def cost(block: Block) -> int:
        # its text, a heading and fence, and a gap marker for every range (the outline has many)
        return count(block.text or range_text(sources.get(block.path, ""), block.ranges)) + 16 + 10 * len(block.ranges)

    fixed = count_prompt(system, render(())) if settings.budget is not None else 0
    kept = fill(offered, budget=settings.budget, fixed_tokens=fixed, cost=cost,
                total=lambda blocks: count_prompt(system, render(blocks)))
    return ContextMessage(render(kept), Shown(kept, len(offered), listed), files)


_MAX_IDS = 30


def _renderer(spec, files: tuple[SourceFile, ...], listed: int, offered: int, settings: ContextSettings):
    def render(kept: tuple[Block, ...]) -> str:
        shown = Shown(kept, offered, listed)
        editable, related, partial = render_code(files, shown)
        sections = [_task_line(spec)]
        spec_block = next((b for b in kept if b.label == "<spec>"), None)
        if spec_block is not None:
            sections.append("## Specification\n\n" + spec_block.text + "\n")
        note = PARTIAL_NOTE + "\n" if partial else ""
        sections.append("## Editable files\n\n" + note + editable)
        if related:
            sections.append("## Related code (read-only)\n\nThese files cannot be edited; they are shown as "
                            "context.\n\n" + related)
        sections.append(_tests_section(spec, kept, listed))
        return "\n".join(sections)

    return render


def _task_line(spec) -> str:
    editable = ", ".join(spec.source_files)
    return f"Fix the bug so that the failing tests below pass. Editable files: {editable}.\n"


def _tests_section(spec, kept: tuple[Block, ...], listed: int) -> str:
    from bench.attempt.prompt import fenced

    ids = "".join(f"- {test_id}\n" for test_id in spec.fail_to_pass[:listed])
    more = len(spec.fail_to_pass) - listed
    if more:
        ids += f"- (and {more} more)\n"
    parts = [f"## Failing tests\n\nThese tests fail now and must pass after your edit:\n{ids}"]
    shown = {b.path: b.text for b in kept if b.label == "<tests>"}
    for path in failing_tests.group_by_file(spec.fail_to_pass):
        if path in shown:
            parts.append(f"### {path}\n\n{fenced(shown[path], 'python')}")
        else:
            parts.append(f"### {path}\n\n(the test source is left out: it does not fit the prompt's budget)\n")
    return "\n".join(parts)


def _test_blocks(spec, workspace: Path, read) -> list[Block]:
    blocks = []
    for path, refs in failing_tests.group_by_file(spec.fail_to_pass).items():
        source = read(workspace, path)
        text = "(test file not found in the workspace)\n" if source is None else failing_tests.extract(source, refs)
        blocks.append(Block(path, "<tests>", text=text, editable=False))
    return blocks


def _ranked(spec, workspace: Path, files: tuple[SourceFile, ...], read, query: str, *, whole_repository: bool):
    """BM25-ranked chunks: of the whole repository (retrieval) or of the editable files (localized)."""
    from bench.attempt.retrieval import chunks_of, corpus_files, rank

    editable = {f.path: f for f in files}
    paths = corpus_files(workspace, spec.test_files) if whole_repository else ()
    others = load_sources(workspace, tuple(p for p in paths if p not in editable), read, editable=False)
    everything = (*files, *others)
    chunks, texts = [], []
    for f in everything:
        if f.text is None:
            continue
        for chunk in chunks_of(f.path, f.text):
            chunks.append(chunk)
            texts.append(range_text(f.text, chunk.ranges))
    ranked = rank(tuple(chunks), tuple(texts), query, unmatched=not whole_repository)
    used = {c.path for c in ranked}
    return (*files, *(f for f in others if f.path in used)), ranked


def current_files(workspace: Path, message: ContextMessage, read) -> str:
    """The same blocks of the editable files as they read now (a repair loop's later turns), found again by
    name."""
    now = []
    blocks = []
    for f in message.files:
        if not f.editable:
            continue
        text = read(workspace, f.path)
        code = map_code(f.path, text) if text is not None else None
        now.append(SourceFile(f.path, text, code, True))
        for block in message.shown.blocks:
            if block.path == f.path:
                blocks.append(_again(block, code, text))
    return render_code(tuple(now), Shown(tuple(b for b in blocks if b is not None), 0, 0))[0]


def _again(block: Block, code, text: str | None) -> Block | None:
    if text is None:
        return None
    if block.label == "<file>" or code is None:
        return whole_file_block(block.path, len(text.splitlines()))
    if block.label == "<module>":
        return Block(block.path, "<module>", code.module_code) if code.module_code else None
    if block.label == "<outline>":
        return outline_block(block.path, code)
    if not any(d.qualname == block.label for d in code.definitions):
        return None
    return definition_block(code, block.path, block.label)
