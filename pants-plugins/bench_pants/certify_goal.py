"""`./pants certify <targets>`: the gate as cached Pants processes, one per task.

Each task runs `bench certify --spec` in a process whose inputs are exactly what decides its certificate: the
harness (as a PEX built from src/python/bench), the spec, the lock, the image's pin and the task's own data.
Pants caches the process by the digest of those inputs, so with nothing changed the goal does no work, and a
changed lock re-runs exactly the tasks that use it. The harness's own action cache uses the same inputs, so
plain `bench certify` agrees with the goal.
"""

import gzip
import json

from pants.backend.python.util_rules.pex import PexProcess
from pants.engine.console import Console
from pants.engine.fs import CreateDigest, Digest, DigestContents, FileContent, MergeDigests, PathGlobs, Workspace
from pants.engine.goal import Goal, GoalSubsystem
from pants.engine.internals.selectors import Get, MultiGet
from pants.engine.internals.session import RunId
from pants.engine.process import ProcessResult
from pants.engine.rules import collect_rules, goal_rule
from pants.engine.target import Targets
from pants.option.option_types import IntOption
from pants.util.logging import LogLevel

from bench_pants.harness import HarnessPex, HarnessPexRequest, TaskInputs, TaskInputsRequest, process_env, ran_or_cached
from bench_pants.targets import TaskSpecField


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
    harness = await Get(HarnessPex, HarnessPexRequest())
    shared = await Get(Digest, PathGlobs(["pants.toml"]))
    own = await MultiGet(Get(TaskInputs, TaskInputsRequest(t)) for t in tasks)
    inputs = await MultiGet(Get(Digest, MergeDigests([shared, o.digest])) for o in own)
    env = process_env()
    results = await MultiGet(
        Get(ProcessResult, PexProcess(
            harness.pex,
            argv=["certify", "--spec", t[TaskSpecField].file_path, "--k", str(subsystem.k), "--out",
                  "certificate.json.gz"],
            input_digest=digest,
            extra_env=env,
            output_files=["certificate.json.gz"],
            description=f"certify {t.address.target_name}",
            level=LogLevel.INFO,
        ))
        for t, digest in zip(tasks, inputs)
    )
    contents = await MultiGet(Get(DigestContents, Digest, r.output_digest) for r in results)
    exit_code = 0
    written = []
    for result, files in zip(results, contents):
        certificate = json.loads(gzip.decompress(files[0].content))
        decision = certificate["decision"]
        exit_code = exit_code or (0 if decision["admitted"] else 1)
        how = ran_or_cached(result, run_id)
        console.print_stdout(f"{'certified' if how == 'ran' else how:<9} {certificate['task_id']}: "
                             f"{decision['reason']} f2p={len(certificate['sets']['fail_to_pass'])}")
        # The harness's own bytes: gzip written here, by Pants' interpreter, would carry another header, and
        # every committed certificate would show as changed with nothing in it changed.
        path = f"results/certificates/{certificate['task_id']}.json.gz"
        written.append(FileContent(path, files[0].content))
    workspace.write_digest(await Get(Digest, CreateDigest(written)))
    return Certify(exit_code=exit_code)


def rules():
    return collect_rules()
