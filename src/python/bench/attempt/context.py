"""Context policies: which code a prompt shows, filled into a token budget (``--context``, ``--context-budget``).

* ``files`` — the editable files whole (the default; without a budget the prompt is byte for byte what it
  always was);
* ``localized`` — the definitions the failing tests reach directly (:mod:`bench.attempt.localize`: traceback
  frames, names the tests use), a signature-only outline of each file, the files' own module code, then what
  that code calls; with a budget, the rest of the files' definitions ranked by BM25 follow while they fit;
* ``retrieval`` — the repository's code ranked by BM25 against the failing tests
  (:mod:`bench.attempt.retrieval`); code outside the editable files is shown read-only.

A prompt is filled in a fixed order and cut at block boundaries, never inside one: the task line and the
failing test ids (at most :data:`MAX_LISTED_IDS` with a budget), the task's specification, the failing tests'
source (a block per test file), then the policy's blocks in rank order. A block that does not fit is left
out and the next is tried. The whole prompt, system message included, is then counted with the tokenizer
and blocks are taken back from the end until it fits: a budget is never exceeded. Only the base tree, the
failing tests and their output at base are read; never the fix.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from bench.attempt import code_map
from bench.attempt.code_map import CodeMap, Range, merge_ranges, render_partial
from bench.errors import UsageError

CONTEXT_POLICIES = ("files", "localized", "retrieval")
DEFAULT_CONTEXT = CONTEXT_POLICIES[0]
MAX_LISTED_IDS = 30  # failing test ids listed in a budgeted prompt; the rest are counted
RETRIEVAL_CHUNKS = 20
CLOSE_RANK = 2  # reached code of this rank or lower (bench.attempt.localize) comes before the outline  # blocks retrieval shows without a budget
MIN_BUDGET = 1000


@dataclass(frozen=True)
class ContextSettings:
    policy: str = DEFAULT_CONTEXT
    budget: int | None = None  # tokens of the whole prompt; None: no limit
    tokenizer: str = "estimate"  # bench.model.tokenizers: what the budget and the recorded size count in

    def __post_init__(self) -> None:
        if self.policy not in CONTEXT_POLICIES:
            raise UsageError(f"unknown context policy {self.policy!r}; known: {', '.join(CONTEXT_POLICIES)}")
        if self.budget is not None and self.budget < MIN_BUDGET:
            raise UsageError(f"a context budget of {self.budget} tokens is too small (at least {MIN_BUDGET})")

    @property
    def is_default(self) -> bool:
        return self.policy == DEFAULT_CONTEXT and self.budget is None

    def as_record(self) -> dict:
        return {"policy": self.policy, "budget": self.budget, "tokenizer": self.tokenizer}


@dataclass(frozen=True)
class Block:
    path: str
    label: str  # a qualname, "<module>", "<outline>", "<file>", "<tests>" or "<spec>"
    ranges: tuple[Range, ...] = ()
    text: str = ""  # for blocks that are not file lines (test source, specification)
    editable: bool = True


@dataclass(frozen=True)
class Shown:
    """What a prompt shows: the blocks kept, in priority order, and how many were offered."""
    blocks: tuple[Block, ...]
    offered: int
    listed_ids: int

    @property
    def cut(self) -> bool:
        return len(self.blocks) < self.offered

    def ranges(self, path: str) -> tuple[Range, ...]:
        return merge_ranges(r for b in self.blocks if b.path == path for r in b.ranges)


@dataclass(frozen=True)
class SourceFile:
    path: str
    text: str | None  # None: the file does not exist yet
    code: CodeMap | None = field(default=None, compare=False)
    editable: bool = True

    @property
    def line_count(self) -> int:
        return len(self.text.splitlines()) if self.text else 0


def policy_blocks(policy: str, files: tuple[SourceFile, ...], reached, ranked_chunks,
                  budgeted: bool) -> list[Block]:
    """The policy's blocks of code, best first (before the tests' own blocks are put in front)."""
    if policy == "files":
        return [whole_file_block(f.path, f.line_count) for f in files if f.text is not None]
    by_path = {f.path: f for f in files}
    if policy == "retrieval":
        chunks = ranked_chunks if budgeted else ranked_chunks[:RETRIEVAL_CHUNKS]
        return [_chunk_block(by_path, chunk) for chunk in chunks]

    def reached_block(r) -> Block:
        return definition_block(by_path[r.path].code, r.path, r.qualname)

    blocks = [reached_block(r) for r in reached if r.rank <= CLOSE_RANK]
    blocks += [outline_block(f.path, f.code) for f in files if f.code is not None and f.code.definitions]
    for f in files:
        if f.text is not None and f.code is None:  # a file that does not parse is one block
            blocks.append(whole_file_block(f.path, f.line_count))
        elif f.code is not None and f.code.module_code:
            blocks.append(Block(f.path, "<module>", f.code.module_code))
    blocks += [reached_block(r) for r in reached if r.rank > CLOSE_RANK]
    if budgeted:
        blocks += [_chunk_block(by_path, chunk) for chunk in ranked_chunks if chunk.path in by_path]
    return _unique(blocks)


def whole_file_block(path: str, line_count: int) -> Block:
    return Block(path, "<file>", ((1, max(1, line_count)),))


def outline_block(path: str, code: CodeMap) -> Block:
    """The headers (decorators and signatures) of every definition of a file."""
    return Block(path, "<outline>", merge_ranges(d.header for d in code.definitions))


def definition_block(code: CodeMap, path: str, qualname: str) -> Block:
    """A definition's own lines with the headers of the classes around it."""
    definition = next(d for d in code.definitions if d.qualname == qualname)
    parts = qualname.split(".")
    headers = [d.header for i in range(1, len(parts)) for d in code.named(".".join(parts[:i]))
               if d.kind == "class"]
    return Block(path, qualname, merge_ranges([*definition.own, *headers]))


def _chunk_block(by_path: dict[str, SourceFile], chunk) -> Block:
    source = by_path.get(chunk.path)
    if source is not None and source.code is not None and chunk.qualname:
        block = definition_block(source.code, chunk.path, chunk.qualname)
        return Block(block.path, block.label, block.ranges, editable=source.editable)
    label = chunk.qualname or "<module>"
    return Block(chunk.path, label, chunk.ranges, editable=source.editable if source else False)


def _unique(blocks: list[Block]) -> list[Block]:
    seen, out = set(), []
    for block in blocks:
        key = (block.path, block.label)
        if key not in seen:
            seen.add(key)
            out.append(block)
    return out


def fill(blocks: list[Block], *, budget: int | None, fixed_tokens: int, cost, total) -> tuple[Block, ...]:
    """Blocks in order while their running ``cost`` fits ``budget``; when the whole prompt's exact count
    (``total`` of the kept blocks) says otherwise, the estimate is rescaled and the fill redone (at most
    :data:`_REFITS` times), then blocks are taken back from the end until it fits, and a few blocks left out
    get a second chance with an exact count each. The result never exceeds ``budget``."""
    if budget is None:
        return tuple(blocks)
    scale = 1.0
    for _ in range(_REFITS):
        kept = _greedy(blocks, budget - fixed_tokens, cost, scale)
        exact = total(tuple(kept))
        if exact <= budget:
            break
        # The running estimate fell short (BPE counts are not additive, markers join ranges): scale it by what
        # the exact count says and fill again, rather than dropping blocks that were never the problem.
        estimated = fixed_tokens + sum(cost(block) for block in kept)
        scale *= max(exact - fixed_tokens, 1) / max(estimated - fixed_tokens, 1) * 1.02
    while kept and exact > budget:
        kept.pop()
        exact = total(tuple(kept))
    if exact > budget:
        raise UsageError(f"even without any code the prompt does not fit {budget} tokens: raise --context-budget")
    return _second_chance(blocks, kept, budget, cost, total, used=exact)


_REFITS = 4  # fills with a rescaled estimate before blocks are taken back
_SECOND_CHANCES = 8  # exact counts spent on blocks left out, once the prompt fits


def _second_chance(blocks: list[Block], kept: list[Block], budget: int, cost, total, *,
                   used: int) -> tuple[Block, ...]:
    """Blocks left out that may fit the room the exact count (``used``) shows, tried in order with an exact
    count each (a few at most: every try tokenizes the whole prompt)."""
    chosen = set(kept)
    tries = 0
    for block in blocks:
        if block in chosen or cost(block) > budget - used:
            continue
        if tries == _SECOND_CHANCES:
            break
        tries += 1
        trial = tuple(b for b in blocks if b in chosen or b is block)  # priority order kept
        exact = total(trial)
        if exact <= budget:
            chosen.add(block)
            used = exact
    return tuple(b for b in blocks if b in chosen)


def _greedy(blocks: list[Block], room: int, cost, scale: float) -> list[Block]:
    kept, used = [], 0.0
    for block in blocks:
        price = cost(block) * scale
        if used + price <= room:
            kept.append(block)
            used += price
    return kept


def render_code(files: tuple[SourceFile, ...], shown: Shown) -> tuple[str, str, bool]:
    """The editable files' section, the read-only section (retrieval), as markdown, and whether some file is
    shown in part. A file whose left-out lines are all blank is shown whole."""
    from bench.attempt.prompt import fenced, language_of

    editable, related, partial = [], [], False
    for f in files:
        ranges = shown.ranges(f.path)
        if not f.editable and not ranges:
            continue
        target = editable if f.editable else related
        if f.text is None:
            target.append(f"### {f.path}\n\n(This file does not exist yet; create it with an empty SEARCH.)\n")
            continue
        lines = render_partial(f.text, ranges).splitlines(keepends=True)
        hidden = sum(line.startswith(code_map.GAP_PREFIX) for line in lines)
        if not hidden or f.line_count == 0:
            target.append(f"### {f.path}\n\n{fenced(f.text, language_of(f.path))}")
            continue
        partial = True
        heading = f"### {f.path} ({len(lines) - hidden} of {f.line_count} lines shown)"
        target.append(f"{heading}\n\n{fenced(''.join(lines), language_of(f.path))}")
    return "\n".join(editable), "\n".join(related), partial


PARTIAL_NOTE = (
    "Only parts of some files are shown. Shown lines are exact; a line `" + code_map.GAP_PREFIX + "lines a-b not "
    "shown` stands for lines left out — it is not in the file, so never copy it into an edit. Code that is not "
    "shown may still be edited: an edit applies wherever its text matches the file.\n"
)


def load_sources(workspace: Path, paths: tuple[str, ...], read, *, editable: bool) -> tuple[SourceFile, ...]:
    out = []
    for path in paths:
        text = read(workspace, path)
        out.append(SourceFile(path, text, code_map.map_code(path, text) if text is not None else None, editable))
    return tuple(out)
