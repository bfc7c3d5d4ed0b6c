"""``mutation``: a released library (a pinned sdist) with one injected fault; the fix side is the release."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any, Mapping

from bench.kinds.base import RepositoryKind
from bench.spec.kind_registry import register
from bench.spec.model import TaskSpec


@register("mutation")
class MutationKind(RepositoryKind):
    name = "mutation"
    provenance_source = "mutation"
    required_keys = ("sdist", "mutation")

    def check_document(self, doc: Mapping[str, Any], *, path: str) -> None:
        from bench.spec.validate import check_relative_path

        check_relative_path(doc["mutation"]["file"], path=path, pointer="/mutation/file")

    def document_library(self, doc: Mapping[str, Any]) -> str:
        return str(doc.get("sdist", {}).get("name", "?")).lower().replace("_", "-")

    def library(self, spec: TaskSpec) -> str:
        if spec.sdist is None:  # a spec made in code without its release
            return super().document_library({"repo": spec.repo})
        return self.document_library({"sdist": {"name": spec.sdist.name}})

    def admission_group(self, spec: TaskSpec) -> str:
        return f"mutation-{self.library(spec)}"

    def dating(self, doc: Mapping[str, Any]) -> dict[str, str]:
        """The day the pinned release was uploaded, as its index says (nothing when the index does not say)."""
        from bench.spec.model import SdistPin

        if "released" in doc["provenance"]:
            return {}
        day = upload_day(SdistPin(**doc["sdist"]))
        return {"released": day} if day else {}

    def lay_out(self, spec: TaskSpec, side: str, dest: Path, *, mirror: Path | None) -> str:
        from bench.source.workspace import lay_out_release

        return lay_out_release(spec, side, dest)

    def content_masks(self, spec: TaskSpec, mounts: tuple, scratch: Path) -> tuple[str, ...]:
        """The released code is the answer: a copy of it vendored in the environment is masked."""
        from bench.score.no_leak import release_content_masks

        return release_content_masks(spec, mounts, scratch)


@functools.lru_cache(maxsize=64)
def upload_day(pin) -> str:
    """The UTC day the index says the pinned file was uploaded ("" if it does not say); asked once per release,
    however many of its mutants are admitted."""
    from bench.source.sdist import release_upload_time
    from bench.spec.model import utc_day

    return utc_day(release_upload_time(pin))
