"""``scripted/<study>``: replays committed per-task trajectories, the deterministic headline of the study.

The trajectories are data, not code: ``tasks/synthetic/_scripted/<study>/<slug>.json`` holds, per feedback
condition, the response text of each turn (SEARCH/REPLACE edits valid against the workspace as the previous
turn left it) and the class the harness is expected to observe. ``bench.study.generate`` builds and
verifies those files; ``tasks/synthetic/_scripted/README.md`` documents the modelling choices.

Which regime a task gets is fixed by its id, so the mix is not chosen by hand::

    bucket = int(sha256(task_id).hexdigest(), 16) % 100
     0..39  converge   (40 %)   partial fixes, then the reference at turn t
    40..59  oscillate  (20 %)   two failing states alternate, the code changing every turn
    60..79  stall      (20 %)   the same failing candidate emitted again
    80..99  exhaust    (20 %)   a new failing candidate and failing state every turn

    t = 1 + int(sha256("converge-turn:" + task_id).hexdigest(), 16) % 3     (1..3)

``complete`` looks up (task id, condition, turn); past the last stored turn it repeats the last text.
"""

from __future__ import annotations

import hashlib
import json
import threading
from pathlib import Path

from bench.errors import SpecError, UsageError
from bench.model.protocol import Completion, Message, ModelParams, RequestContext
from bench.model.registry import register

BUCKETS = 100
# (first bucket, last bucket, regime), covering 0..99 without gaps
REGIME_TABLE = ((0, 39, "converge"), (40, 59, "oscillate"), (60, 79, "stall"), (80, 99, "exhaust"))
REGIMES = tuple(regime for _, _, regime in REGIME_TABLE)
EXPECTED_CLASS = {
    "converge": "CONVERGED",
    "oscillate": "OSCILLATING",
    "stall": "STALLED",
    "exhaust": "EXHAUSTED",
}
CONDITIONS = ("full", "count-only")
STUDY_TURN_BUDGET = 5
DEFAULT_STUDY = "study"
DATA_SCHEMA = 1
SYNTHETIC_PREFIX = "synthetic."
SCRIPTED_DIR = Path("tasks") / "synthetic" / "_scripted"
# How a synthetic task gets its trajectories, run from the checkout's root (needs pytest on that python3).
GENERATE_COMMAND = "PYTHONPATH=src/python python3 -m bench.study.generate"


def regime_bucket(task_id: str) -> int:
    return int(hashlib.sha256(task_id.encode("utf-8")).hexdigest(), 16) % BUCKETS


def regime_of(task_id: str) -> str:
    bucket = regime_bucket(task_id)
    for first, last, regime in REGIME_TABLE:
        if first <= bucket <= last:
            return regime
    raise AssertionError(f"bucket {bucket} outside the regime table")  # the table covers 0..99


def converge_turn(task_id: str) -> int:
    """The turn (1..3) at which a converging task's full-feedback trajectory emits the reference."""
    digest = hashlib.sha256(f"converge-turn:{task_id}".encode("utf-8")).hexdigest()
    return 1 + int(digest, 16) % 3


def slug_of(task_id: str) -> str:
    return task_id.removeprefix(SYNTHETIC_PREFIX)


def find_scripted_root(start: Path | None = None) -> Path:
    """``tasks/synthetic/_scripted`` of the benchmark checkout containing ``start`` (or cwd, or this module)."""
    starts = [Path(start)] if start is not None else [Path.cwd(), Path(__file__).resolve().parent]
    for origin in starts:
        for folder in (origin.resolve(), *origin.resolve().parents):
            if (folder / SCRIPTED_DIR).is_dir():
                return folder / SCRIPTED_DIR
    raise UsageError(f"no {SCRIPTED_DIR} folder above {', '.join(str(s) for s in starts)}")


def no_trajectory_message(model_id: str, study_dir: Path, task_ids: tuple[str, ...]) -> str:
    """Why ``model_id`` cannot score ``task_ids``, and what to run so it can."""
    others = [task_id for task_id in task_ids if not task_id.startswith(SYNTHETIC_PREFIX)]
    if others:
        return (f"{model_id} replays only synthetic tasks; {len(others)} selected tasks are not "
                f"({', '.join(others[:3])}{', ...' if len(others) > 3 else ''}): select them with "
                f"--tasks kind:synthetic")
    files = ", ".join(str(study_dir / f"{slug_of(task_id)}.json") for task_id in task_ids[:3])
    return (f"{model_id} has no trajectory for {len(task_ids)} selected task(s): {', '.join(task_ids[:3])}"
            f"{', ...' if len(task_ids) > 3 else ''} (no {files}). A new synthetic task gets its trajectories "
            f"from the generator, run from the checkout's root: {GENERATE_COMMAND}  (it runs the tasks' tests "
            f"on this machine with that python3's pytest, writes the missing files and the table of "
            f"{SCRIPTED_DIR}/README.md); or leave the task out of --tasks")


def load_trajectory_file(path: Path) -> dict:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise SpecError(f"cannot read scripted trajectory: {exc}", kind="scripted-data", path=str(path)) from exc
    if data.get("schema") != DATA_SCHEMA or set(data.get("conditions", {})) != set(CONDITIONS):
        raise SpecError("unexpected schema or conditions", kind="scripted-data", path=str(path))
    for condition in CONDITIONS:
        if not data["conditions"][condition].get("responses"):
            raise SpecError(f"no responses for {condition}", kind="scripted-data", path=str(path))
    return data


@register("scripted")
class ScriptedModel:
    """A :class:`bench.model.protocol.Model` replaying ``tasks/synthetic/_scripted/<study>/``."""

    deterministic = True

    def __init__(self, name: str = DEFAULT_STUDY, params: ModelParams | None = None, *,
                 root: Path | None = None) -> None:
        study = name or DEFAULT_STUDY
        if "/" in study or study.startswith((".", "_")):
            raise UsageError(f"invalid scripted study name {study!r}")
        self.model_id = f"scripted/{study}"
        self.params = params or ModelParams()
        self.study_dir = (Path(root) if root is not None else find_scripted_root()) / study
        if not self.study_dir.is_dir():
            raise UsageError(f"scripted study {study!r} has no folder {self.study_dir}")
        self._lock = threading.Lock()
        self._loaded: dict[str, dict] = {}

    def input_files(self, task_id: str) -> tuple[str, ...]:
        """The repository file its replies to ``task_id`` come from: an input of `./pants score`'s units."""
        return ((SCRIPTED_DIR / self.study_dir.name / f"{slug_of(task_id)}.json").as_posix(),)

    def check_covers(self, task_ids: tuple[str, ...]) -> None:
        """Before a run: every task has its trajectory file, else a UsageError saying how to make them."""
        missing = tuple(task_id for task_id in task_ids if not (self.study_dir / f"{slug_of(task_id)}.json").is_file())
        if missing:
            raise UsageError(no_trajectory_message(self.model_id, self.study_dir, missing))

    def trajectory(self, task_id: str) -> dict:
        with self._lock:
            if task_id not in self._loaded:
                path = self.study_dir / f"{slug_of(task_id)}.json"
                if not path.is_file():
                    raise UsageError(no_trajectory_message(self.model_id, self.study_dir, (task_id,)))
                data = load_trajectory_file(path)
                if data["task_id"] != task_id:
                    raise SpecError(f"file is for {data['task_id']}", kind="scripted-data", path=str(path))
                self._loaded[task_id] = data
            return self._loaded[task_id]

    def complete(
        self, messages: tuple[Message, ...], params: ModelParams, context: RequestContext
    ) -> Completion:
        conditions = self.trajectory(context.task_id)["conditions"]
        if context.condition not in conditions:
            raise UsageError(f"{self.model_id}: unknown feedback condition {context.condition!r}")
        responses = conditions[context.condition]["responses"]
        text = responses[min(max(context.turn, 1), len(responses)) - 1]
        return Completion(text=text, served_model=self.model_id)
