"""Task kinds behind one seam: what differs between a merged fix (``pr``), an injected fault (``mutation``) and
an authored task (``synthetic``) is asked of the kind's object, never branched on by name elsewhere.

A kind is a class satisfying :class:`TaskKind`, registered with :func:`register` when its module is imported.
The built-in kinds live in :mod:`bench.kinds` and are imported by name, lazily (:data:`KIND_MODULES`), so the
spec layer does not import the layers a kind's behaviour reaches into (sources, locks, scoring); a kind from
outside the harness comes in through ``BENCH_PLUGINS`` as model providers and sandbox backends do
(docs/ARCHITECTURE.md §4, §5).
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping, Protocol, TypeVar

from bench.errors import SpecError

if TYPE_CHECKING:
    from bench.spec.model import TaskSpec


class TaskKind(Protocol):
    """What one kind of task decides. Every method is given the task's spec (or its parsed document)."""

    name: str
    provenance_source: str  # the spec's ``provenance.source`` for this kind
    required_keys: tuple[str, ...]  # spec keys the schema leaves optional and this kind needs
    judged: bool  # whether admission judges the change a bug fix (judge() answers)
    shared_lock: bool  # whether every task of the kind names one lock, which admission keeps unless asked

    def check_document(self, doc: Mapping[str, Any], *, path: str) -> None:
        """Rules of this kind beyond the schema (raise SpecError)."""

    def document_library(self, doc: Mapping[str, Any]) -> str:
        """The library a (possibly invalid) candidate document belongs to: tables, caps, drop counts."""

    def library(self, spec: TaskSpec) -> str: ...

    def is_library(self) -> bool:
        """Whether the tasks come from a real library (counted in ``bench pool stats``' library count)."""

    def selector_names(self, spec: TaskSpec) -> tuple[str, ...]:
        """Names ``lib:NAME`` selects the task by, besides its library."""

    def admission_group(self, spec: TaskSpec) -> str:
        """The folder under ``tasks/`` an admitted spec is written to."""

    def dating(self, doc: Mapping[str, Any]) -> dict[str, str]:
        """Provenance labels (``released``, ``authored``) that date a candidate of this kind at admission."""

    def spec_file_name(self, spec: TaskSpec) -> str:
        """The admitted spec's file name in that folder."""

    def check_admission(self, spec: TaskSpec) -> None:
        """Before admission writes anything: raise UsageError for a candidate that cannot be admitted as named."""

    def repo_inputs(self, spec: TaskSpec) -> tuple[str, ...]:
        """Folders of the benchmark checkout holding the task's code: inputs of its certificate and target."""

    def lay_out(self, spec: TaskSpec, side: str, dest: Path, *, mirror: Path | None) -> str:
        """Write side ``base`` or ``fix`` of the task into the empty folder ``dest``; return the version a
        build that derives it from VCS history should see."""

    def check_sources(self, spec: TaskSpec, *, mirror: Path | None) -> None:
        """Before a run builds anything: raise SourceError if the task's code cannot be had here."""

    def lock(self, spec: TaskSpec, root: Path, *, sandbox_name: str, mirror: Path | None) -> Path:
        """Resolve and write the task's lock; return its path."""

    def limits(self, spec: TaskSpec) -> Any:
        """Resource limits of one scored test run (a ``bench.sandbox.protocol.Limits``)."""

    def specification_text(self, spec: TaskSpec, root: Path) -> str:
        """What the model is told besides the failing tests ("" for none)."""

    def content_masks(self, spec: TaskSpec, mounts: tuple, scratch: Path) -> tuple[str, ...]:
        """Sandbox paths of environment files that hold the task's answer, hidden from its scored runs."""

    def judge(self, spec: TaskSpec, *, mirror: Path | None, fix_side_failing: tuple[str, ...] = ()) -> Any:
        """Whether the task's change is a bug fix (a ``bench.spec.model.Judgement``), or None for a kind whose
        tasks are faults by construction; ``fix_side_failing`` are the tests that fail with the fix as well."""


K = TypeVar("K")

# kind -> module that registers it on import
KIND_MODULES: dict[str, str] = {
    "pr": "bench.kinds.pr",
    "mutation": "bench.kinds.mutation",
    "synthetic": "bench.kinds.synthetic",
}

_kinds: dict[str, TaskKind] = {}


def register(name: str) -> Callable[[type[K]], type[K]]:
    """Class decorator: an instance of the class answers for tasks whose spec says ``"kind": name``."""

    def decorate(cls: type[K]) -> type[K]:
        _kinds[name] = cls()  # type: ignore[assignment]
        return cls

    return decorate


def known_kinds() -> tuple[str, ...]:
    return tuple(sorted(set(KIND_MODULES) | set(_kinds)))


def get_kind(name: str) -> TaskKind:
    """The kind registered as ``name``; an unknown name raises SpecError (``bad_value``) listing the known."""
    if name not in _kinds:
        if name in KIND_MODULES:
            importlib.import_module(KIND_MODULES[name])
        else:
            from bench.plugins import load_plugins

            load_plugins()
    kind = _kinds.get(name)
    if kind is None:
        raise SpecError(f"unknown task kind {name!r} (known: {', '.join(known_kinds())})", kind="bad_value",
                        pointer="/kind")
    return kind


def kind_of(spec: TaskSpec) -> TaskKind:
    return get_kind(spec.kind)
