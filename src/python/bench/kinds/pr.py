"""``pr``: a merged fix of a real repository; base and fix are commits of the repository's history."""

from __future__ import annotations

from pathlib import Path

from bench.kinds.base import RepositoryKind
from bench.spec.kind_registry import register
from bench.spec.model import TaskSpec


@register("pr")
class PullRequestKind(RepositoryKind):
    name = "pr"
    provenance_source = "pull-request"
    required_keys = ("base_sha", "fix_sha")

    def check_sources(self, spec: TaskSpec, *, mirror: Path | None) -> None:
        """The repository with both commits, from a mirror, the clone cache or a clone — before any image or
        environment is built."""
        from bench.errors import SourceError
        from bench.source.git import ensure_cache

        try:
            ensure_cache(spec, mirror=mirror)
        except SourceError as exc:
            raise SourceError(f"{spec.task_id}: its repository is not available here ({exc}); give --mirror DIR or "
                              "set BENCH_MIRROR_DIR to a folder of mirrors, or check the network") from exc
