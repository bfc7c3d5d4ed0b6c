"""`./pants certify <targets>`: the gate as cached Pants processes, one per task.

Each task runs `bench certify --spec` in a process whose inputs are exactly what decides its certificate: the
harness (as a PEX built from src/python/bench), the spec, the lock, the image's pin and the task's own data.
Pants caches the process by the digest of those inputs, so with nothing changed the goal does no work, and a
changed lock re-runs exactly the tasks that use it. The harness's own action cache uses the same inputs, so
plain `bench certify` agrees with the goal.
"""

import gzip
import json
import os

from pants.backend.python.util_rules.pex import Pex, PexProcess, PexRequest
from pants.backend.python.util_rules.pex_from_targets import PexFromTargetsRequest
from pants.backend.python.target_types import EntryPoint
from pants.engine.addresses import Address
from pants.engine.console import Console
from pants.engine.fs import CreateDigest, Digest, DigestContents, FileContent, MergeDigests, PathGlobs, Workspace
from pants.engine.goal import Goal, GoalSubsystem
from pants.engine.internals.selectors import Get, MultiGet
from pants.engine.internals.session import RunId
from pants.engine.process import ProcessResult, ProcessResultMetadata
from pants.engine.rules import collect_rules, goal_rule
from pants.engine.target import HydratedSources, HydrateSourcesRequest, Targets
from pants.option.option_types import IntOption
from pants.util.logging import LogLevel

from bench_pants.targets import TaskDataField, TaskImageField, TaskLockfileField, TaskSpecField

# The CLI and everything it imports (not the llama.cpp provider, which is built from source).
HARNESS = Address("src/python/bench", relative_file_path="cli/main.py", target_name="lib")
PASSED_ENV = ("HOME", "PATH", "BENCH_CACHE_DIR", "BENCH_SANDBOX", "BENCH_MIRROR_DIR")


class CertifySubsystem(GoalSubsystem):
    name = "certify"
    help = "Certify benchmark tasks with the gate (cached by the content of each task's inputs)."
    k = IntOption(default=3, help="Runs per side.")


class Certify(Goal):
    subsystem_cls = CertifySubsystem
    environment_behavior = Goal.EnvironmentBehavior.LOCAL_ONLY


@goal_rule
async def certify(
    console: Console, workspace: Workspace, targets: Targets, subsystem: CertifySubsystem, run_id: RunId
) -> Certify:
    tasks = [t for t in targets if t.has_field(TaskSpecField)]
    if not tasks:
        console.print_stderr("No bench_task targets matched.")
        return Certify(exit_code=0)
    pex_request = await Get(PexRequest, PexFromTargetsRequest(
        [HARNESS], output_filename="bench.pex", internal_only=True,
        main=EntryPoint.parse("bench.cli.main:entry"),
    ))
    harness = await Get(Pex, PexRequest, pex_request)
    shared = await Get(Digest, PathGlobs(["pants.toml"]))
    inputs = await MultiGet(Get(Digest, PathGlobs(_task_globs(t))) for t in tasks)
    data = await MultiGet(Get(HydratedSources, HydrateSourcesRequest(t[TaskDataField])) for t in tasks)
    merged = await MultiGet(
        Get(Digest, MergeDigests([shared, digest, hydrated.snapshot.digest]))
        for digest, hydrated in zip(inputs, data)
    )
    env = {k: os.environ[k] for k in PASSED_ENV if k in os.environ}
    env["BENCH_NO_PROGRESS"] = "1"
    results = await MultiGet(
        Get(ProcessResult, PexProcess(
            harness,
            argv=["certify", "--spec", t[TaskSpecField].file_path, "--k", str(subsystem.k), "--out",
                  "certificate.json"],
            input_digest=digest,
            extra_env=env,
            output_files=["certificate.json"],
            description=f"certify {t.address.target_name}",
            level=LogLevel.INFO,
        ))
        for t, digest in zip(tasks, merged)
    )
    contents = await MultiGet(Get(DigestContents, Digest, r.output_digest) for r in results)
    exit_code = 0
    written = []
    for task, result, files in zip(tasks, results, contents):
        certificate = json.loads(files[0].content)
        decision = certificate["decision"]
        exit_code = exit_code or (0 if decision["admitted"] else 1)
        ran = result.metadata.source(run_id) == ProcessResultMetadata.Source.RAN
        console.print_stdout(f"{'certified' if ran else 'cached   '} {certificate['task_id']}: "
                             f"{decision['reason']} f2p={len(certificate['sets']['fail_to_pass'])}")
        path = f"results/certificates/{certificate['task_id']}.json.gz"  # as the harness writes them
        written.append(FileContent(path, gzip.compress(files[0].content, mtime=0)))
    workspace.write_digest(await Get(Digest, CreateDigest(written)))
    return Certify(exit_code=exit_code)


def _task_globs(target) -> list:
    image = target[TaskImageField].value
    return [
        target[TaskSpecField].file_path,
        target[TaskLockfileField].value,
        f"images/{image}/recipe.json",
        f"images/{image}/digest",
        f"images/{image}/manifest.txt",
    ]


def rules():
    return collect_rules()
