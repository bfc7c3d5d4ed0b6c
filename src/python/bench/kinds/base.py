"""What a kind does unless it says otherwise: a task whose code is a git repository at two commits.

The defaults are the ``pr`` kind's; the other kinds override what differs (docs/ARCHITECTURE.md §4).
Everything beyond the spec layer is imported inside the method that needs it, so loading a kind to ask a
spec's library costs nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from bench.sandbox.protocol import Limits
from bench.spec.model import Judgement, TaskSpec, import_packages

# A scored run of a real library's tests.
SCORE_LIMITS = Limits(wall_seconds=300.0, memory_bytes=4 << 30, pids=512, cpus=1.0, output_bytes=1 << 20)


class RepositoryKind:
    name = ""
    provenance_source = ""
    required_keys: tuple[str, ...] = ()
    judged = False
    # Whether every task of the kind names one lock (bench.gate.shared_lock): admission keeps it unless asked.
    shared_lock = False
    # Whether the verified tier probes every public function of the source files, not only the ones the
    # reference change touches (bench.probes.targets): a synthetic task's tests call its public API by name.
    probe_public_api = False

    def check_document(self, doc: Mapping[str, Any], *, path: str) -> None:
        return None

    def document_library(self, doc: Mapping[str, Any]) -> str:
        return str(doc.get("repo", "?")).rstrip("/").split("/")[-1].removesuffix(".git").lower()

    def library(self, spec: TaskSpec) -> str:
        return self.document_library({"repo": spec.repo})

    def is_library(self) -> bool:
        return True

    def selector_names(self, spec: TaskSpec) -> tuple[str, ...]:
        return import_packages(spec.source_files)

    def admission_group(self, spec: TaskSpec) -> str:
        return self.library(spec)

    def spec_file_name(self, spec: TaskSpec) -> str:
        return f"{spec.task_id}.json"

    def dating(self, doc: Mapping[str, Any]) -> dict[str, str]:
        """The provenance labels that date a new task of this kind, when its candidate lacks them (a PR task is
        dated by its merge, which mining records)."""
        return {}

    def check_admission(self, spec: TaskSpec) -> None:
        """Refuse (UsageError) a candidate that cannot be admitted as it is named or laid out."""
        return None

    def repo_inputs(self, spec: TaskSpec) -> tuple[str, ...]:
        return ()

    def lay_out(self, spec: TaskSpec, side: str, dest: Path, *, mirror: Path | None) -> str:
        from bench.source.git import ensure_cache
        from bench.source.workspace import lay_out_from_git

        origin = ensure_cache(spec, mirror=mirror)
        return lay_out_from_git(spec, side, dest, origin.cache, spec.base_sha, spec.fix_sha)

    def check_sources(self, spec: TaskSpec, *, mirror: Path | None) -> None:
        return None

    def lock(self, spec: TaskSpec, root: Path, *, sandbox_name: str, mirror: Path | None) -> Path:
        from bench.gate.admit import lock_candidate

        return lock_candidate(spec, root, sandbox_name=sandbox_name, mirror=mirror)

    def limits(self, spec: TaskSpec) -> Limits:
        return SCORE_LIMITS

    def specification_text(self, spec: TaskSpec, root: Path) -> str:
        return ""

    def content_masks(self, spec: TaskSpec, mounts: tuple, scratch: Path) -> tuple[str, ...]:
        return ()

    def judge(self, spec: TaskSpec, *, mirror: Path | None, fix_side_failing: tuple[str, ...] = ()) -> Judgement | None:
        return None
