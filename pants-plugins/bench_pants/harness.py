"""What the goals share: the harness as a PEX, the environment its processes see, and a task's own inputs."""

import os
from dataclasses import dataclass
from typing import Tuple

from pants.backend.python.target_types import EntryPoint
from pants.backend.python.util_rules.pex import Pex, PexRequest
from pants.backend.python.util_rules.pex_from_targets import PexFromTargetsRequest
from pants.engine.addresses import Address
from pants.engine.fs import Digest, MergeDigests, PathGlobs
from pants.engine.internals.selectors import Get
from pants.engine.rules import collect_rules, rule
from pants.engine.target import HydratedSources, HydrateSourcesRequest, Target

from bench_pants.targets import TaskDataField, TaskImageField, TaskLockfileField, TaskSpecField

# The CLI and everything it imports (not the llama.cpp provider, which is built from source).
HARNESS = Address("src/python/bench", relative_file_path="cli/main.py", target_name="lib")
# Part of every process's cache key: the harness's own caches (images, venvs, clones) and the sandbox it uses.
PASSED_ENV = ("HOME", "PATH", "BENCH_CACHE_DIR", "BENCH_SANDBOX", "BENCH_MIRROR_DIR")


@dataclass(frozen=True)
class HarnessPex:
    """The harness PEX, as its own type so one rule builds it for every goal."""

    pex: Pex


@dataclass(frozen=True)
class HarnessPexRequest:
    pass


@rule
async def harness_pex(_: HarnessPexRequest) -> HarnessPex:
    request = await Get(PexRequest, PexFromTargetsRequest(
        [HARNESS], output_filename="bench.pex", internal_only=True,
        main=EntryPoint.parse("bench.cli.main:entry"),
    ))
    return HarnessPex(await Get(Pex, PexRequest, request))


def process_env() -> dict:
    env = {k: os.environ[k] for k in PASSED_ENV if k in os.environ}
    env["BENCH_NO_PROGRESS"] = "1"
    return env


def task_globs(target) -> list:
    """A task's spec, lock and image pin: what decides its environment and its certificate."""
    image = target[TaskImageField].value
    return [
        target[TaskSpecField].file_path,
        target[TaskLockfileField].value,
        f"images/{image}/recipe.json",
        f"images/{image}/digest",
        f"images/{image}/manifest.txt",
    ]


@dataclass(frozen=True)
class TaskInputsRequest:
    target: Target
    extra_globs: Tuple[str, ...] = ()  # files the task's processes read besides its own (a model's data)


@dataclass(frozen=True)
class TaskInputs:
    digest: Digest


@rule
async def task_inputs(request: TaskInputsRequest) -> TaskInputs:
    """The digest of a task's own inputs (its globs, its data) and the request's extra globs."""
    globs = await Get(Digest, PathGlobs([*task_globs(request.target), *request.extra_globs]))
    data = await Get(HydratedSources, HydrateSourcesRequest(request.target[TaskDataField]))
    return TaskInputs(await Get(Digest, MergeDigests([globs, data.snapshot.digest])))


def rules():
    return collect_rules()


def ran_or_cached(result, run_id) -> str:
    """How Pants got a process's result in this run: "ran", "cached" (local store) or "remote" (remote cache)."""
    from pants.engine.process import ProcessResultMetadata

    source = result.metadata.source(run_id)
    return {ProcessResultMetadata.Source.RAN: "ran",
            ProcessResultMetadata.Source.HIT_REMOTELY: "remote"}.get(source, "cached")
