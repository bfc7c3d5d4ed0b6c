"""Task locks: a repository's test dependencies, resolved inside the sandbox and pinned by hash.

:func:`resolve_lock` runs every step that touches the repository in the sandbox: a cached tool venv (pip-tools,
itself installed from the committed hash-pinned ``lockfiles/tools/pip-tools.lock``) collects the test
requirements at base (project dependencies and test-like extras, PEP 735 groups, requirements files, build
requirements, plus ``pytest``) and runs ``pip-compile --generate-hashes`` for the image's interpreter, reaching
the index only through the allowlist proxy, optionally as of a cut-off date (pip's ``--uploaded-prior-to``).
The repository itself is not in the lock: it is installed from its checkout with ``--no-deps``.
"""

from __future__ import annotations

import hashlib
import logging
import re
import tempfile
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from bench import profile
from bench.environment import _pip_tools
from bench.errors import EnvironmentBuildError, UsageError

log = logging.getLogger(__name__)

TOOLS_LOCK = "lockfiles/tools/pip-tools.lock"
TASK_LOCKS = "lockfiles/tasks"
SYNTHETIC_LOCK = "lockfiles/tasks/synthetic.lock"
# The cut-off the committed synthetic lock was resolved at (fixed, so regenerating it gives the same text).
SYNTHETIC_CUTOFF = "2026-11-20T00:00:00Z"
# Bootstrap of the tool lock itself (unpinned once, then pinned by the lock it produces).
TOOL_REQUIREMENTS = ("pip-tools==7.6.2", "pip==26.3")
_TASK_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._+-]*$")


@dataclass(frozen=True)
class LockedRequirement:
    name: str  # PEP 503 normalised
    version: str
    hashes: tuple[str, ...]  # sha256 hex digests of every file the lock accepts
    marker: str = ""


@dataclass(frozen=True)
class Lock:
    text: str
    sha256: str
    requirements: tuple[LockedRequirement, ...]

    @classmethod
    def from_text(cls, text: str) -> Lock:
        """Parse and check a lock: every entry must be ``name==version`` with at least one sha256 hash."""
        try:
            entries = _pip_tools.parse_locked(text)
        except ValueError as error:
            raise EnvironmentBuildError(f"lock rejected: {error}") from error
        requirements = tuple(LockedRequirement(*entry) for entry in entries)
        return cls(text, hashlib.sha256(text.encode("utf-8")).hexdigest(), requirements)


@dataclass(frozen=True)
class LockInput:
    requirement: str
    origin: str  # "project.dependencies", "extra:test", "requirements-dev.txt", "build-system", "harness", …


@dataclass(frozen=True)
class LockResult:
    text: str
    sha256: str
    cutoff_used: str | None  # the --uploaded-prior-to actually applied
    fallback_reason: str  # why the requested cut-off was not applied ("" when it was, or none was asked)
    inputs: tuple[LockInput, ...]
    dropped: tuple[LockInput, ...] = ()  # lines that could not be locked (URLs, local paths), with why
    project: str = ""  # the repository's own project name, left out of the lock
    # (name, version) pip chose as of the cut-off, before any build floor; empty when the resolution took a retry
    # or its floor failed, so that nothing but the pins decides it cannot be assumed (resolution_share)
    first_pass: tuple[tuple[str, str], ...] = ()

    @property
    def lock(self) -> Lock:
        return Lock.from_text(self.text)


def as_lock(value) -> Lock:
    """A Lock from a Lock, a LockResult or a lock file path."""
    if isinstance(value, Lock):
        return value
    if isinstance(value, LockResult):
        return value.lock
    if isinstance(value, (str, Path)):
        return load_lock(Path(value))
    raise TypeError(f"not a lock: {type(value).__name__}")


def load_lock(path: Path) -> Lock:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as error:
        raise EnvironmentBuildError(f"cannot read lock {path}: {error}") from error
    return Lock.from_text(text)


def checkout_path(relative: str, root: Path | None = None) -> Path:
    """``relative`` inside the benchmark checkout (``$BENCH_ROOT``, else found from the working directory,
    else from where this package lives)."""
    if root is None:
        from bench.variables import find_root

        try:
            root = find_root()
        except UsageError:
            root = find_root(Path(__file__).resolve().parent)
    return Path(root) / relative


def write_lock(task_id: str, text: str, *, root: Path | None = None) -> Path:
    """Write ``lockfiles/tasks/<task_id>.lock`` atomically, after checking it is a hash-pinned lock."""
    if not _TASK_ID_RE.match(task_id):
        raise UsageError(f"task id {task_id!r} cannot name a lock file")
    Lock.from_text(text)
    path = checkout_path(f"{TASK_LOCKS}/{task_id}.lock", root)
    return atomic_write_text(path, text)


def atomic_write_text(path: Path, text: str) -> Path:
    from bench.store.atomic import write_atomic

    return write_atomic(path, text.encode("utf-8"))


def normalise_cutoff(cutoff: str | None) -> str | None:
    """An ISO date or datetime → ``YYYY-MM-DDTHH:MM:SSZ`` in UTC (a date means its midnight UTC)."""
    if not cutoff:
        return None
    try:
        moment = datetime.fromisoformat(cutoff.replace("Z", "+00:00"))
    except ValueError as error:
        raise UsageError(f"cut-off {cutoff!r} is not an ISO 8601 date or datetime") from error
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


SYNTHETIC_LOCK_TITLE = "Hash-pinned test dependencies shared by the synthetic tasks (pytest and what it needs)."
TASK_LOCK_TITLE = "Hash-pinned test dependencies of one task (the repository itself is installed from its checkout)."


def lock_header(python: str, cutoff_used: str | None, title: str = TASK_LOCK_TITLE) -> tuple[str, ...]:
    as_of = f"from files uploaded before {cutoff_used}" if cutoff_used else "at resolution time (no cut-off)"
    return (
        title,
        f"Resolved by pip-compile for Python {python} (the image's interpreter) {as_of}.",
        "Generated by bench.environment.lock; do not edit by hand.",
    )


# --- resolution ---------------------------------------------------------------------------------------------


@profile.timed("lock")
def resolve_lock(
    repo_dir: Path,
    *,
    image,
    sandbox_name: str = "bwrap",
    cutoff: str | None,
    extra_requirements: tuple[str, ...] = ("pytest",),
    cache_dir: Path | None = None,
    title: str = TASK_LOCK_TITLE,
    late: tuple[str, ...] = (),
) -> LockResult:
    """Resolve the test dependencies of the checkout at ``repo_dir`` (its base commit) into a lock.

    ``cutoff`` (ISO date or datetime, e.g. the fix's merge time) limits resolution to files uploaded before
    it; when pip cannot apply it, the lock is resolved without and ``fallback_reason`` says why.
    """
    from bench.environment import resolution_share
    from bench.environment._lock_steps import collect_inputs, compile_inputs, tool_environment
    from bench.sandbox.index_proxy import IndexProxy

    tool = tool_environment(image, sandbox_name, cache_dir=cache_dir)
    with tempfile.TemporaryDirectory(prefix="bench-lock-") as temp, IndexProxy() as proxy:
        work = Path(temp)
        project, inputs, dropped = collect_inputs(Path(repo_dir), tool, work, proxy.socket_path,
                                                  tuple(extra_requirements))
        python = "%d.%d" % tool.manifest.interpreter.version_info
        key = resolution_share.share_key(python=python, tool_lock_sha256=tool.env_key, project=project, title=title, late=late,
                        inputs=tuple((i.requirement, i.origin) for i in inputs),
                        dropped=tuple((d.requirement, d.origin) for d in dropped))
        shared = shared_resolution(key, normalise_cutoff(cutoff), python, title, tool.manifest.interpreter)
        if shared is not None:
            return shared
        result = compile_inputs(inputs, tool=tool, work=work, proxy_socket=proxy.socket_path, cutoff=cutoff,
                                project=project, dropped=dropped, title=title, late=late)
        remember_resolution(key, result)
        return result


def shared_resolution(key: str, wanted: str | None, python: str, title: str, interpreter) -> LockResult | None:
    """The lock a stored resolution of the same inputs gives as of ``wanted`` when the index shows pip must
    choose the same again (:mod:`bench.environment.resolution_share`), under this cut-off's own header."""
    from bench.environment import resolution_share

    if wanted is None:
        return None
    fits = _fits(interpreter)
    entry = resolution_share.find_shared(resolution_share.default_store().entries(key), wanted, python, fits=fits)
    if entry is None:
        return None
    try:
        old_line, new_line = (f"# {lock_header(python, day, title)[1]}" for day in (entry["cutoff"], wanted))
        text = entry["text"]
        if old_line not in text.splitlines():
            return None
        text = text.replace(old_line + "\n", new_line + "\n", 1)
        lock = Lock.from_text(text)
        result = LockResult(text, lock.sha256, wanted, "", tuple(LockInput(*i) for i in entry["inputs"]),
                            tuple(LockInput(*d) for d in entry["dropped"]), entry["project"],
                            tuple(tuple(p) for p in entry["first_pass"]))
    except (KeyError, TypeError, ValueError, EnvironmentBuildError):  # a damaged entry: resolve instead
        return None
    log.info("lock as of %s shares the resolution as of %s", wanted, entry["cutoff"])
    return result


def _fits(interpreter):
    """Whether pip would install a file of the index on ``interpreter``: a wheel of a fitting tag whose
    Requires-Python admits it."""
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    from bench.environment.wheelhouse import Target

    target = Target.for_interpreter(interpreter)

    def fits(released) -> bool:
        if not released.wheel or target.rank(released.filename) is None:
            return False
        try:
            return not released.requires_python or interpreter.version in SpecifierSet(released.requires_python)
        except InvalidSpecifier:
            return False

    return fits


def remember_resolution(key: str, result: LockResult) -> None:
    """Keep a resolution that applied its cut-off, for the next task with the same inputs."""
    from bench.environment import resolution_share

    if not result.cutoff_used or result.fallback_reason or not result.first_pass:
        return
    if not resolution_share.settled(result.cutoff_used):
        return
    resolution_share.default_store().add(key, {
        "cutoff": result.cutoff_used, "text": result.text, "project": result.project,
        "inputs": [[i.requirement, i.origin] for i in result.inputs],
        "dropped": [[d.requirement, d.origin] for d in result.dropped],
        "first_pass": [list(p) for p in result.first_pass],
    })


def synthetic_lock(image, sandbox_name: str = "bwrap", *, cache_dir: Path | None = None) -> LockResult:
    """The shared lock of synthetic tasks: pytest and its dependencies, resolved from an empty repository."""
    with tempfile.TemporaryDirectory(prefix="bench-empty-repo-") as empty:
        return resolve_lock(Path(empty), image=image, sandbox_name=sandbox_name, cutoff=SYNTHETIC_CUTOFF,
                            cache_dir=cache_dir, title=SYNTHETIC_LOCK_TITLE)


_REPOSITORY_FRAME = re.compile(r'File "/work/repo/[^"]+"')
_OLD_CODE_ERRORS = re.compile(r"^\s*((?:ImportError|ModuleNotFoundError|SyntaxError|AttributeError|NameError|"
                              r"TypeError)(?::.*)?)$", re.MULTILINE)


# The project's own metadata written in a form today's build tools refuse (``python_requires = >=3.7.*``): the
# backend that accepted it is too old to run on the image.
_OLD_METADATA_ERRORS = re.compile(r"^\s*(packaging\.(?:specifiers|requirements|version)\.Invalid\w+: .*)$", re.MULTILINE)
# A setup() argument today's setuptools refuses (isodate of 2018 passes ``use_2to3``, removed in setuptools 58).
_OLD_SETUP_ARGUMENTS = re.compile(r"^\s*(error in \S+ setup command: .*)$", re.MULTILINE)


def old_code_failure(message: str) -> str:
    """The error line when collecting a repository's requirements failed inside its own code (its setup.py or
    package no longer runs on the image's Python: ``import imp``, ``distutils``, removed aliases) or on its own
    metadata (a version specifier or setup() argument today's build backends refuse), else "". That is the
    candidate's code being too old for the image, not a lock that could not be resolved."""
    if not message.startswith("collecting the test requirements"):
        return ""
    metadata = _OLD_METADATA_ERRORS.findall(message) or _OLD_SETUP_ARGUMENTS.findall(message)
    if metadata:
        return metadata[-1].strip()
    if not _REPOSITORY_FRAME.search(message):
        return ""
    errors = _OLD_CODE_ERRORS.findall(message)
    return errors[-1].strip() if errors else ""


_BACKEND_HOOK = re.compile(r"BuildBackendException: Backend subprocess exited when trying to invoke (\w+)")


def backend_failure(message: str) -> str:
    """``the repository's build backend failed in <hook>: <its last line>`` when collecting the requirements
    stopped in the repository's own build backend, else "": what the backend printed comes before the
    collector's traceback, which names only the hook."""
    hook = _BACKEND_HOOK.search(message)
    if not message.startswith("collecting the test requirements") or not hook:
        return ""
    before = message.split("Traceback (most recent call last):", 1)[0].splitlines()[1:]
    said = [line.strip() for line in before if line.strip()]
    return f"the repository's build backend failed in {hook.group(1)}: {said[-1] if said else 'no output'}"
