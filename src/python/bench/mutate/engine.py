"""The mutation engine: seeded, deterministic single-site mutants of a released library's source tree.

:func:`mutate` proposes at most one mutant per function. For each function the operators (``operators.py``,
a policy over :mod:`bench.operators`) list the possible sites; a seeded hash (sha256, never Python's
``hash()``) orders them and the first whose edit re-parses to exactly the intended AST change is kept. With
``limit`` the functions themselves are visited in seeded order until enough mutants exist. The result is sorted
by (file, byte offset) and numbered.

Edits are byte-span replacements of the original file: formatting and comments outside the span stay as they
were. ``apply_mutation`` and ``revert`` (:mod:`bench.source.mutation_site`) write one site into a tree after
checking the bytes at its span (against the sha256 the site names: the text itself stays out of task specs).
"""

from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass
from pathlib import Path

from bench.errors import UsageError
from bench.mutate import files as file_selection
from bench.mutate._stringy import stringy_names
from bench.mutate.operators import (
    LAST_RESORT,
    NEAR_MISS_OPERATORS,
    PROFILES,
    EngineProfile,
    function_facts,
    sites_of,
    writes_not_wrappers,
)
from bench.mutate.scope import FunctionScope, function_scopes
from bench.mutate.exact_edit import ParsedModule, load_module, verified_edit
from bench.mutate.anomalies import added_anomaly
from bench.mutate.readability import planted_on_sight
from bench.operators.sites import Edit, Site
from bench.source.mutation_site import text_sha256
from bench.spec.model import MutationSite

ENGINE_VERSION = "3"  # the default: the version the committed mutation pool was made with
ENGINE_VERSIONS = tuple(sorted(PROFILES))
# What near_misses proposes (all operators, every site: readability filters do not apply to a near miss of a fix).
# Adequacy results are keyed by it; bump it when that set changes, not when only the injected bugs do.
NEAR_MISS_VERSION = "2"


@dataclass(frozen=True)
class MutationCandidate:
    """One proposed mutant: where and what (``site``), the text its span replaces, and the unified diff it makes.

    ``original`` and ``diff`` quote the library's code: they are for the reviewer and for :func:`revert`, and
    never enter a task spec (the site names the original text by sha256).
    """

    site: MutationSite
    original: str
    diff: str

    def to_dict(self) -> dict:
        return {**asdict(self.site), "diff": self.diff}


@dataclass(frozen=True, eq=False)
class _FunctionSites:
    module: ParsedModule
    scope: FunctionScope
    sites: tuple[Site, ...]


def _function_sites(module: ParsedModule, operators: tuple[str, ...]) -> list[_FunctionSites]:
    found = []
    wraps = writes_not_wrappers(module.view.data.decode("utf-8", "replace"))  # once per file, not per function
    for scope in function_scopes(module.tree):
        facts = function_facts(scope.node, scope.own_nodes, stringy=stringy_names(scope.node, list(scope.own_nodes)),
                               in_generator=scope.is_generator, file_wraps_not=wraps)
        sites = [site for node in scope.own_nodes for site in sites_of(node, module.view, facts)
                 if site.operator in operators]
        if sites:
            sites.sort(key=lambda site: (site.start, site.end, site.operator, site.edits[0][2]))
            found.append(_FunctionSites(module, scope, tuple(sites)))
    return found


def _rank(version: str, *parts: object) -> bytes:
    return hashlib.sha256("|".join(str(part) for part in (version, *parts)).encode()).digest()


def profile(version: str) -> EngineProfile:
    if version not in PROFILES:
        raise UsageError(f"unknown mutation engine version {version!r}; known: {', '.join(ENGINE_VERSIONS)}")
    return PROFILES[version]


def _diff(path: str, data: bytes, edit: Edit) -> str:
    """The unified diff of one span edit (3 lines of context), as ``diff -u`` / ``git diff`` print it."""
    start, end, text = edit
    lines = data.decode("utf-8").splitlines(keepends=True)
    first = data.count(b"\n", 0, start)
    last = data.count(b"\n", 0, end)
    line_start = data.rfind(b"\n", 0, start) + 1
    changed_before = lines[first : last + 1]
    head = data[line_start:start].decode("utf-8")
    tail = "".join(changed_before)[len(head) + len(data[start:end].decode("utf-8")) :]
    changed_after = (head + text + tail).splitlines(keepends=True)
    context_before = lines[max(0, first - 3) : first]
    context_after = lines[last + 1 : last + 4]
    old_start = first - len(context_before) + 1
    old_count = len(context_before) + len(changed_before) + len(context_after)
    new_count = len(context_before) + len(changed_after) + len(context_after)
    body = [" " + line for line in context_before]
    body += ["-" + line for line in changed_before] + ["+" + line for line in changed_after]
    body += [" " + line for line in context_after]
    hunk = "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in body)
    ranges = f"-{_hunk_range(old_start, old_count)} +{_hunk_range(old_start, new_count)}"
    return f"--- a/{path}\n+++ b/{path}\n@@ {ranges} @@\n{hunk}"


def _hunk_range(start: int, count: int) -> str:
    return str(start) if count == 1 else f"{start},{count}"


def _candidate(function: _FunctionSites, site: Site, edit: Edit, seed: int, version: str) -> MutationCandidate:
    module = function.module
    start, end, text = edit
    line_starts = module.view.line_starts
    line = module.view.lineno(start)
    data = module.view.data
    mutant_site = MutationSite(
        file=module.path,
        function=function.scope.qualname,
        operator=site.operator,
        lineno=line,
        col=start - line_starts[line - 1],
        start=start,
        end=end,
        original_sha256=text_sha256(module.view.text(start, end)),
        replacement=text,
        engine_version=version,
        seed=seed,
        index=-1,  # numbered once the final order is known
    )
    return MutationCandidate(mutant_site, module.view.text(start, end), _diff(module.path, data, edit))


def _choose(function: _FunctionSites, seed: int, engine: EngineProfile) -> MutationCandidate | None:
    """The function's mutant: an operator by a seeded choice weighted by the engine's weights among those with a site
    here (a last resort such as ``return None`` only when no other has one that verifies), then one of its sites
    by a seeded choice. Choosing the operator first keeps one with many sites (a name read anywhere) from
    crowding the others. Weights are tickets: an operator's key is the least hash of its tickets (integers
    only, the same on every machine)."""
    path, qualname = function.module.path, function.scope.qualname

    def operator_key(operator: str) -> bytes:
        return min(_rank(engine.version, seed, "operator", path, qualname, operator, ticket)
                   for ticket in range(engine.weights[operator]))

    ordered = sorted(
        function.sites,
        key=lambda site: (site.operator in LAST_RESORT, operator_key(site.operator),
                          _rank(engine.version, seed, "site", path, qualname, site.start, site.end, site.operator,
                                site.edits[0][2])),
    )
    for site in ordered:
        edit = verified_edit(function.module, site)
        if edit is None or planted_on_sight(function.module, function.scope.node, function.scope.own_nodes, site,
                                            edit[2]):
            continue
        if engine.refuse_anomalies and added_anomaly(function.module.view.data, *edit):
            continue
        return _candidate(function, site, edit, seed, engine.version)
    return None


def mutate(
    tree: Path,
    *,
    seed: int = 0,
    limit: int | None = None,
    include: tuple[str, ...] = file_selection.DEFAULT_INCLUDE,
    exclude: tuple[str, ...] = file_selection.DEFAULT_EXCLUDE,
    operators: tuple[str, ...] | None = None,
    version: str = ENGINE_VERSION,
) -> tuple[MutationCandidate, ...]:
    """Seeded single-site mutants of the library under ``tree``: at most one per function, sorted by (file,
    start) and numbered by ``site.index``. The same tree, seed, engine version and arguments always give the
    same result. ``operators`` narrows the version's own (default: all of them)."""
    engine = profile(version)
    operators = engine.operators if operators is None else tuple(o for o in operators if o in engine.operators)
    tree = Path(tree)
    functions: list[_FunctionSites] = []
    for path in file_selection.list_library_files(tree, include, exclude):
        module = load_module(tree, path)
        if module is not None:
            functions.extend(_function_sites(module, operators))
    if limit is not None:
        functions.sort(key=lambda f: _rank(engine.version, seed, "function", f.module.path, f.scope.qualname,
                                           f.scope.node.lineno))
    chosen: list[MutationCandidate] = []
    for function in functions:
        if limit is not None and len(chosen) >= limit:
            break
        candidate = _choose(function, seed, engine)
        if candidate is not None:
            chosen.append(candidate)
    chosen.sort(key=lambda c: (c.site.file, c.site.start, c.site.end, c.site.operator))
    return tuple(
        MutationCandidate(_with_index(candidate.site, index), candidate.original, candidate.diff)
        for index, candidate in enumerate(chosen)
    )


def near_misses(tree: Path, path: str, lines: set[int]) -> tuple[MutationCandidate, ...]:
    """Every verified mutant (all operators, every site, in source order) of the functions of ``path`` under
    ``tree`` that most closely enclose one of ``lines``: the near misses of a change to those lines
    (bench.gate.adequacy). Lines outside every function enclose nothing."""
    module, sites = near_miss_sites(tree, path, lines)
    return tuple(candidate for function, site in sites if (candidate := verify(function, site)) is not None)


def near_miss_sites(tree: Path, path: str, lines: set[int]) -> tuple[ParsedModule | None, list]:
    """The unverified sites behind :func:`near_misses`, each with its function, in source order: a caller that
    runs only some of them verifies just those (:func:`verify`; verifying re-parses the whole file)."""
    module = load_module(Path(tree), path)
    if module is None:
        return None, []
    scopes = function_scopes(module.tree)
    chosen = {id(innermost.node) for line in lines if (innermost := _innermost(scopes, line)) is not None}
    return module, [(function, site) for function in _function_sites(module, NEAR_MISS_OPERATORS)
                    if id(function.scope.node) in chosen for site in function.sites]


def verify(function: _FunctionSites, site: Site) -> MutationCandidate | None:
    """The site as a mutant of its function, or None when no spelling of it parses to exactly the change."""
    edit = verified_edit(function.module, site)
    return None if edit is None else _candidate(function, site, edit, seed=0, version=ENGINE_VERSION)


def _innermost(scopes: tuple[FunctionScope, ...], line: int) -> FunctionScope | None:
    holding = [scope for scope in scopes if scope.node.lineno <= line <= scope.node.end_lineno]
    return max(holding, key=lambda scope: scope.node.lineno, default=None)


def _with_index(site: MutationSite, index: int) -> MutationSite:
    return MutationSite(**{**asdict(site), "index": index})
