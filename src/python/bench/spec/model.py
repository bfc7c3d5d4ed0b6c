"""The TaskSpec record: one benchmark task, as loaded from `tasks/**/*.json` and validated."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Mapping


# Only a change something calls a fix is admitted: of 11 "unclear" PR tasks read by hand (no signal either way),
# 5 were no bug fix at all and 4 more pinned what only their own fix could know (docs/measurements/pr-audit.md).
ADMITTED_VERDICTS = ("bugfix",)


@dataclass(frozen=True)
class Judgement:
    """Whether a merged change is a bug fix (bench.gate.judgement): the verdict, the signals it was read from,
    and the fail_to_pass tests that pin a name or message only this fix could know."""

    verdict: str  # "bugfix" | "feature" | "breaking" | "change" | "revert" | "unclear"
    signals: tuple[str, ...] = ()
    over_specified: tuple[str, ...] = ()
    version: str = ""
    # The change's own new or changed tests that fail with the fix too (the gate leaves them out of every set:
    # an interpreter that removed an API they call, not the fix, decides them), and how many it has in all.
    own_tests_failing: tuple[str, ...] = ()
    own_tests: int = 0

    def to_json(self) -> dict:
        document = {"verdict": self.verdict, "signals": list(self.signals),
                    "over_specified": list(self.over_specified), "version": self.version}
        if self.own_tests:  # absent when nothing was counted, so judgements made before keep their bytes
            document.update(own_tests=self.own_tests, own_tests_failing=list(self.own_tests_failing))
        return document

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Judgement:
        return cls(data["verdict"], tuple(data.get("signals", ())), tuple(data.get("over_specified", ())),
                   data.get("version", ""), tuple(data.get("own_tests_failing", ())), data.get("own_tests", 0))

    @property
    def mostly_failing_own_tests(self) -> bool:
        """Most of the change's own tests fail with the fix as well: what is left to certify is a remnant."""
        return len(self.own_tests_failing) >= 2 and 2 * len(self.own_tests_failing) > self.own_tests

    @property
    def admitted(self) -> bool:
        return self.verdict in ADMITTED_VERDICTS

    def pins_only_this_fix(self, fail_to_pass: tuple[str, ...]) -> bool:
        """Every fail_to_pass test is over-specified: no other correct fix could pass any of them."""
        return bool(fail_to_pass) and set(fail_to_pass) <= set(self.over_specified)


@dataclass(frozen=True)
class Provenance:
    """Where a task came from. For PR tasks: the PR; for synthetic: 'authored'; for mutation: the operator."""

    source: str  # "pull-request" | "authored" | "mutation"
    pr_number: int | None = None
    url: str = ""
    merged_at: str = ""
    title: str = ""
    reverted_commit: str = ""  # a reverted-fix mutation task: the commit whose fix it undoes
    # The day a mutation task's release was uploaded to its index, and the day a synthetic task was written
    # (YYYY-MM-DD, UTC). Labels like the judgement: not part of the spec's identity.
    released: str = ""
    authored: str = ""
    # A PR task's admission judgement. Not part of the spec's identity (spec_sha256): re-judging a task
    # changes no certificate and no record.
    judgement: Judgement | None = None


@dataclass(frozen=True)
class SdistPin:
    """A PyPI release pinned by file name and sha256 (mutation tasks)."""

    name: str
    version: str
    filename: str
    sha256: str
    index_url: str = "https://pypi.org/simple"


@dataclass(frozen=True)
class MutationSite:
    """One injected bug: a byte-span replacement in one file of the released tree.

    The span's text is named by its sha256, never quoted: a spec carries no third-party source. Whoever holds
    the pinned release reads the text at ``start:end`` and checks it against ``original_sha256``.
    """

    file: str
    function: str
    operator: str
    lineno: int
    col: int
    start: int
    end: int
    original_sha256: str
    replacement: str
    engine_version: str
    seed: int
    index: int


@dataclass(frozen=True)
class TaskSpec:
    task_id: str
    kind: str
    repo: str
    source_files: tuple[str, ...]
    test_files: tuple[str, ...]
    fail_to_pass: tuple[str, ...]
    pass_to_pass: tuple[str, ...]
    image: str
    lockfile: str
    provenance: Provenance
    base_sha: str = ""
    fix_sha: str = ""
    difficulty: str = ""  # synthetic: easy | medium | hard
    tags: tuple[str, ...] = ()
    synthetic_dir: str = ""  # synthetic: repo-relative folder holding SPEC.md, initial/, reference/, tests/
    sdist: SdistPin | None = None
    mutation: MutationSite | None = None
    schema_version: int = 1
    path: str = field(default="", compare=False)  # where it was loaded from (not part of identity)
    raw: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def library(self) -> str:
        """The grouping used for per-library tables and caps, as the task's kind names it: the repository's
        name, the release's project, or 'synthetic'."""
        from bench.spec.kind_registry import get_kind

        return get_kind(self.kind).library(self)

    @property
    def date(self) -> str:
        """The day the task is dated by (YYYY-MM-DD, UTC): a PR task's merge, a mutation task's release upload,
        a synthetic task's authoring; "" when its spec does not say. What ``after:``/``before:`` and
        ``--cutoff`` compare against a model's training cut-off."""
        p = self.provenance
        return utc_day(p.merged_at or p.released or p.authored)


def utc_day(stamp: str) -> str:
    """``YYYY-MM-DD`` of an ISO 8601 date or time, in UTC ("" for ""); a time without an offset is UTC."""
    if not stamp:
        return ""
    try:
        moment = datetime.fromisoformat(stamp)
    except ValueError:
        raise ValueError(f"not an ISO 8601 date: {stamp!r}") from None
    if isinstance(moment, datetime) and moment.tzinfo is not None:
        moment = moment.astimezone(timezone.utc)
    return moment.date().isoformat()


def import_packages(source_files) -> tuple[str, ...]:
    """Top-level import names of a task's source files (``src/click/core.py`` → ``click``)."""
    names = set()
    for path in source_files:
        parts = path.split("/")
        if parts[0] in ("src", "lib") and len(parts) > 1:
            parts = parts[1:]
        head = parts[0]
        names.add(head[:-3] if head.endswith(".py") and len(parts) == 1 else head)
    return tuple(sorted(n for n in names if n.isidentifier()))


def editable_matches(path: str, source_files) -> tuple[str, ...]:
    """The task's editable files a path printed by a run names (``/work/pkg/mod.py`` or ``pkg\\mod.py`` names
    ``pkg/mod.py``): equal, or ending in ``/`` and it."""
    path = path.replace("\\", "/")
    return tuple(source for source in source_files if path == source or path.endswith("/" + source))


def normalise_name(name: str) -> str:
    """PEP 503 normalised project name (``Foo_Bar.baz`` → ``foo-bar-baz``): how specs, locks and indexes
    name a distribution."""
    return re.sub(r"[-_.]+", "-", name).lower()
