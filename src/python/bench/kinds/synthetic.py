"""``synthetic``: an authored task kept in this repository (SPEC.md, initial/, reference/, tests/)."""

from __future__ import annotations

from pathlib import Path, PurePosixPath
from typing import Any, Mapping

from bench.errors import UsageError
from bench.kinds.base import RepositoryKind
from bench.sandbox.protocol import Limits
from bench.spec.kind_registry import register
from bench.spec.model import TaskSpec

# Synthetic suites run in well under a second; a candidate that loops forever should cost seconds, not minutes.
SYNTHETIC_LIMITS = Limits(wall_seconds=30.0, memory_bytes=2 << 30, pids=256, cpus=1.0, output_bytes=1 << 20)


@register("synthetic")
class SyntheticKind(RepositoryKind):
    name = "synthetic"
    provenance_source = "authored"
    required_keys = ("synthetic", "difficulty")
    probe_public_api = True
    shared_lock = True  # lockfiles/tasks/synthetic.lock, for every synthetic task

    def check_document(self, doc: Mapping[str, Any], *, path: str) -> None:
        from bench.spec.validate import check_relative_path

        check_relative_path(doc["synthetic"]["dir"], path=path, pointer="/synthetic/dir")

    def document_library(self, doc: Mapping[str, Any]) -> str:
        return "synthetic"

    def is_library(self) -> bool:
        return False

    def selector_names(self, spec: TaskSpec) -> tuple[str, ...]:
        return ()  # its modules are not libraries

    def dating(self, doc: Mapping[str, Any]) -> dict[str, str]:
        """A synthetic task is dated by the day it is admitted, unless its author wrote the day down."""
        import datetime

        if "authored" in doc["provenance"]:
            return {}
        return {"authored": datetime.datetime.now(datetime.timezone.utc).date().isoformat()}

    def check_admission(self, spec: TaskSpec) -> None:
        """A synthetic candidate is named after its folder (``tasks/synthetic/<slug>/`` is ``synthetic.<slug>``,
        admitted as ``tasks/synthetic/<slug>.json``): the scripted study and its generator find a task's files
        by that name."""
        folder = PurePosixPath(spec.synthetic_dir).name
        if spec.task_id != f"synthetic.{folder}":
            raise UsageError(f"{spec.task_id}: a synthetic task in {spec.synthetic_dir} must be named "
                             f"synthetic.{folder} (its folder's name)")

    def spec_file_name(self, spec: TaskSpec) -> str:
        """``<folder>.json`` beside the task's folder, as every synthetic spec is named."""
        return f"{Path(spec.synthetic_dir).name}.json"

    def repo_inputs(self, spec: TaskSpec) -> tuple[str, ...]:
        return (spec.synthetic_dir,) if spec.synthetic_dir else ()

    def lay_out(self, spec: TaskSpec, side: str, dest: Path, *, mirror: Path | None) -> str:
        from bench.source.workspace import lay_out_synthetic

        return lay_out_synthetic(spec, side, dest)

    def lock(self, spec: TaskSpec, root: Path, *, sandbox_name: str, mirror: Path | None) -> Path:
        """One lock for every synthetic task: the image's interpreter and pytest."""
        from bench.environment.image import ensure_image
        from bench.environment.lock import synthetic_lock, write_lock

        result = synthetic_lock(ensure_image(spec.image, root=root), sandbox_name)
        return write_lock("synthetic", result.text, root=root)

    def limits(self, spec: TaskSpec) -> Limits:
        return SYNTHETIC_LIMITS

    def specification_text(self, spec: TaskSpec, root: Path) -> str:
        path = root / spec.synthetic_dir / "SPEC.md"
        return path.read_text(encoding="utf-8") if path.is_file() else ""
