"""``pr``: a merged fix of a real repository; base and fix are commits of the repository's history."""

from __future__ import annotations

from pathlib import Path

from bench.kinds.base import RepositoryKind
from bench.spec.kind_registry import register
from bench.spec.model import Judgement, TaskSpec


@register("pr")
class PullRequestKind(RepositoryKind):
    name = "pr"
    provenance_source = "pull-request"
    other_provenance_sources = ("commit",)  # a fix committed directly, in a repository that merges no PRs
    required_keys = ("base_sha", "fix_sha")
    judged = True

    def judge(self, spec: TaskSpec, *, mirror: Path | None, fix_side_failing: tuple[str, ...] = ()) -> Judgement:
        """A merged change may be a feature whose tests fail only because it does not exist yet; and its own
        tests may fail with the fix too (``fix_side_failing``: the certificate's ``baseline_failing``)."""
        from bench.errors import SourceError
        from bench.gate.judge_inputs import judge_spec

        try:
            return judge_spec(spec, mirror=mirror, fix_side_failing=fix_side_failing)
        except SourceError as exc:  # certification read the repository, so only a spec made by hand gets here
            return Judgement("unclear", (f"unreadable: {str(exc)[:120]}",))

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
