"""A task made ready to score: certified, its environment built, a pristine workspace with the repo installed.

Preparing is the expensive part (image, venv, editable install); every attempt on the task then only copies
the pristine tree, applies edits and runs the tests.
"""

from __future__ import annotations

import shutil
import threading
from dataclasses import dataclass
from pathlib import Path

from bench.errors import CheckFailed
from bench.sandbox.protocol import Limits, Mount
from bench.spec.kind_registry import get_kind
from bench.spec.load import spec_sha256
from bench.spec.model import TaskSpec
from bench.store.action_cache import write_atomic
from bench.store.canonical import canonical_json, sha256_bytes



# A layout written by an older harness lacks what this one lays out (content masks since 2, a packed .git
# since 3): made again.
LAYOUT_VERSION = 3


def limits_for(spec: TaskSpec) -> Limits:
    return get_kind(spec.kind).limits(spec)


@dataclass(frozen=True)
class PreparedTask:
    spec: TaskSpec
    pristine: Path  # base side, tests overlaid, repo installed into the overlay; never edited
    spec_text: str  # SPEC.md of synthetic tasks ("" otherwise)
    image_digest: str
    image_root: Path
    env_key: str
    python: str
    env: tuple[tuple[str, str], ...]
    mounts: tuple
    sandbox: object
    integrity: dict  # hashes of the inputs, cited by every record of this task
    allowed_rules: tuple[str, ...] = ()  # integrity rules this task's honest fix breaks (bench.verdict.allowances)
    # Files of the environment that hold the task's answer under another name (bench.score.no_leak), hidden
    # from its scored runs like the vendored copies bench.verdict.masks finds by name.
    content_masks: tuple[str, ...] = ()
    mirror: Path | None = None  # where a PR task's repository is cloned from (its reference is laid out again)
    root: Path | None = None  # the benchmark checkout the task was prepared from

    @property
    def run_environment(self):
        """Where this task's tests run (bench.verdict.run_tests.RunEnvironment)."""
        from bench.verdict.run_tests import RunEnvironment

        return RunEnvironment(self.sandbox, self.image_root, self.image_digest, self.python, self.env,
                              tuple(self.mounts))

    def verdict_key(self) -> dict:
        return {"spec": self.integrity["spec_sha256"], "env_key": self.env_key}


def prepare_task(spec: TaskSpec, root: Path, scratch: Path, *, sandbox_name: str, k: int = 3,
                 mirror: Path | None = None, reuse: bool = False) -> PreparedTask:
    """Certify (cached), build the environment (cached) and lay out the pristine workspace under
    `scratch/<task_id>`. With `reuse`, a workspace laid out earlier for the same inputs is taken as it is."""
    from bench.environment.image import ensure_image, unpack_image
    from bench.environment.venv import ensure_venv, prepare_workspace_env
    from bench.gate.certify import certify
    from bench.sandbox.registry import get_sandbox
    from bench.source.workspace import prepare
    from bench.verdict.allowances import allowed_rules

    # Scored only in its certified environment: a changed image or lock re-certifies here first (the committed
    # certificate counts only while every input it was made from is unchanged).
    outcome = certify(spec, root, k=k, sandbox_name=sandbox_name, mirror=mirror, committed=True)
    if not outcome.certificate.admitted:
        raise CheckFailed(f"{spec.task_id} is not certified in this environment: {outcome.certificate.decision.reason}")
    image = ensure_image(spec.image, root=root)
    environment = ensure_venv(root / spec.lockfile, image, sandbox_name)
    task_dir = scratch / spec.task_id
    marker = task_dir / "ready.json"
    inputs = {"certificate_sha256": outcome.certificate.sha256, "env_key": environment.env_key,
              "layout": LAYOUT_VERSION}
    layout = _read_layout(marker, inputs) if reuse else None
    if layout is None:
        shutil.rmtree(task_dir, ignore_errors=True)
        workspace = prepare(spec, "base", task_dir / "pristine", mirror=mirror)
        run_env = prepare_workspace_env(workspace.path, environment, overlay_dir=task_dir / "overlay")
        layout = {"inputs": inputs, "workspace_sha256": workspace.tree_digest, "python": run_env.python,
                  "env": [list(e) for e in run_env.env],
                  "mounts": [[str(m.host_path), m.sandbox_path, m.writable] for m in run_env.mounts],
                  "content_masks": list(_content_masks(spec, run_env.mounts, task_dir / "leaks"))}
        write_atomic(marker, canonical_json(layout))
    integrity = {
        "spec_sha256": spec_sha256(spec),
        "lock_sha256": sha256_bytes((root / spec.lockfile).read_bytes()),
        "image_digest": image.digest,
        "certificate_sha256": outcome.certificate.sha256,
        "workspace_sha256": layout["workspace_sha256"],
    }
    return PreparedTask(
        spec=spec, pristine=task_dir / "pristine", spec_text=_spec_text(spec, root), image_digest=image.digest,
        image_root=unpack_image(image), env_key=environment.env_key, python=layout["python"],
        env=tuple(tuple(e) for e in layout["env"]),
        mounts=tuple(Mount(Path(h), p, w) for h, p, w in layout["mounts"]),
        sandbox=get_sandbox(sandbox_name), integrity=integrity, allowed_rules=allowed_rules(root, spec.task_id),
        content_masks=tuple(layout.get("content_masks", ())), mirror=mirror, root=root,
    )


def _read_layout(marker: Path, inputs: dict) -> dict | None:
    import json

    if not marker.is_file():
        return None
    layout = json.loads(marker.read_text())
    return layout if layout.get("inputs") == inputs else None


def _content_masks(spec: TaskSpec, mounts, scratch: Path) -> tuple[str, ...]:
    from bench.sandbox.cleanup import remove_tree

    try:
        return get_kind(spec.kind).content_masks(spec, tuple(mounts), scratch)
    finally:
        remove_tree(scratch)


def _spec_text(spec: TaskSpec, root: Path) -> str:
    return get_kind(spec.kind).specification_text(spec, root)


class TaskPool:
    """Prepares each task once, on first use, however many workers ask for it."""

    def __init__(self, root: Path, scratch: Path, *, sandbox_name: str, mirror: Path | None = None) -> None:
        self.root, self.scratch, self.sandbox_name, self.mirror = root, scratch, sandbox_name, mirror
        self._locks: dict[str, threading.Lock] = {}
        self._ready: dict[str, PreparedTask | BaseException] = {}
        self._guard = threading.Lock()

    def get(self, spec: TaskSpec) -> PreparedTask:
        with self._guard:
            lock = self._locks.setdefault(spec.task_id, threading.Lock())
        with lock:
            if spec.task_id not in self._ready:
                try:
                    self._ready[spec.task_id] = prepare_task(spec, self.root, self.scratch,
                                                             sandbox_name=self.sandbox_name, mirror=self.mirror)
                except Exception as exc:  # remembered so every unit of the task reports the same failure
                    self._ready[spec.task_id] = exc
            ready = self._ready[spec.task_id]
        if isinstance(ready, BaseException):
            raise ready
        return ready
