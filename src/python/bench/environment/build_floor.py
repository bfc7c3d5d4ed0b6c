"""Build backends as of the image's Python, not as of the task's date.

A task's test dependencies are locked from files uploaded before its fix was merged, so its tests see the
libraries of their day. Its *build backend* cannot follow that rule: setuptools releases older than the
image's Python do not run on it (before 60 they import the stdlib's distutils, gone since 3.12), so every
candidate older than the interpreter failed its editable install. Build requirements are therefore resolved
in a second pass as of the day the image's Python was released, together with what they pull in, with every
other package held at the version the first pass chose (setuptools below 71, which imports the environment's
``packaging`` rather than its own copy).
The backend builds the project; it is not the code under test.
"""

from __future__ import annotations

from bench.environment.lock import Lock, LockInput, normalise_cutoff

BUILD_ORIGIN = "build-system"
LATE_ORIGIN = "bench:as-of-the-interpreter"
# First release of each interpreter series the images carry (python.org release dates).
PYTHON_RELEASED = {"3.11": "2022-10-24", "3.12": "2023-10-02", "3.13": "2024-10-07"}


def build_cutoff(python: str, cutoff: str | None) -> str | None:
    """The cut-off for build requirements when it must be later than ``cutoff`` (None when it need not). A lock
    without a cut-off (its date's resolution failed) gets the floor too: the newest setuptools breaks old
    projects as surely as an ancient one, and the floor's pass also applies the backend caps."""
    released = PYTHON_RELEASED.get(python)
    if not released:
        return None
    floor = normalise_cutoff(released)
    if not cutoff:
        return floor
    return floor if floor > cutoff else None


# The test runner, when its release of the task's day cannot collect on the image's Python (pytest before 7.3
# builds ast.Str, which a project's `filterwarnings = error` turns into a collection error on 3.12+). Asked
# for only by admission's second attempt, after a collection failure: the first keeps the task's own runner.
RUNNER = ("pytest",)
# Every requirement, when the runner alone is not enough: libraries of the task's day that cannot be imported
# on the image's Python (six before 1.16 has no find_spec, and the ImportWarning becomes a collection error
# under `filterwarnings = error`). Admission's third and last attempt; the gate still decides on the tests.
EVERYTHING = ("",)


_ALL_LATE = "Every requirement and what it pulls in"
_SOME_LATE = " and their requirements"
_FROM = " from files uploaded before "


def floor_note(build: tuple[LockInput, ...], late: tuple[str, ...], later: str, python: str) -> str:
    """The lock header's line saying which packages were resolved as of the interpreter's release."""
    what = _ALL_LATE if late == EVERYTHING else f"{', '.join(sorted(build_names(build)))}{_SOME_LATE}"
    return f"{what}{_FROM}{later}, when Python {python} was released."


def late_from_header(lock_text: str) -> tuple[str, ...]:
    """What :func:`floor_note` wrote, read back from a lock's header: EVERYTHING, the packages it names (the
    build requirements and the ``late`` ones), or () for a lock resolved with no floor line."""
    for line in lock_text.splitlines():
        if not line.startswith("#"):
            break
        if line.startswith(f"# {_ALL_LATE}{_FROM}"):
            return EVERYTHING
        if f"{_SOME_LATE}{_FROM}" in line:
            return tuple(name.strip() for name in line[2:].split(_SOME_LATE)[0].split(","))
    return ()


def split_build(inputs: tuple[LockInput, ...],
                late: tuple[str, ...] = ()) -> tuple[tuple[LockInput, ...], tuple[LockInput, ...]]:
    """(build requirements and the packages named by the ``late`` prefixes, everything else)."""
    chosen = tuple(i for i in inputs if i.origin == BUILD_ORIGIN or (late and _name(i).startswith(late)))
    named = {_name(i) for i in chosen}
    # A late package the project does not ask for itself (cffi under cryptography) joins the later pass too.
    pulled = tuple(LockInput(name, LATE_ORIGIN) for name in late if name and name not in named)
    return chosen + pulled, tuple(i for i in inputs if i not in chosen)


def _name(item: LockInput) -> str:
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    return canonicalize_name(Requirement(item.requirement).name)


def relaxed(inputs: tuple[LockInput, ...], late: frozenset[str]) -> tuple[str, ...]:
    """The requirement lines of the later pass, those of the ``late`` packages by bare name: a project's exact
    pins (``pytest==7.0.1``, ``pluggy==1.0.0`` from a compiled requirements file) would otherwise keep the
    releases that cannot run, or forbid the ones the later releases need."""
    return tuple(_name(i) if _name(i) in late else i.requirement for i in inputs)


def build_names(build: tuple[LockInput, ...]) -> frozenset[str]:
    return frozenset(_name(i) for i in build)


def locked_names(lock_text: str) -> frozenset[str]:
    return frozenset(r.name for r in Lock.from_text(lock_text).requirements)


def backend_caps(names: frozenset[str]) -> tuple[str, ...]:
    """Upper bounds for the later pass. setuptools 71+ imports an installed ``packaging`` (and its other
    vendored libraries) before its own copies, so a project that pins an old ``packaging`` for its tests
    breaks it; 70.x runs on Python 3.13 and uses only what it vendors."""
    return ("setuptools<71",) if "setuptools" in names else ()


def hold_constraints(first_pass: str, leave_out: frozenset[str]) -> str:
    """``name==version`` lines pinning what the first pass chose, except the build requirements."""
    lock = Lock.from_text(first_pass)
    return "".join(f"{r.name}=={r.version}\n" for r in lock.requirements if r.name not in leave_out)
