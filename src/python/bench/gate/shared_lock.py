"""The lock every synthetic task shares, at admission: reused when it serves the candidate, re-resolved only
when asked (``bench admit --relock``).

All synthetic tasks name ``lockfiles/tasks/synthetic.lock`` and each certificate records its sha256, so
resolving it again for one new task changes every synthetic task's lock and certificate, and the committed
runs no longer reproduce. A candidate is admitted with the lock as it is when the lock serves it: made for the
Python of the candidate's image, and pinning every package the task's code and tests import beyond the
standard library and the task's own modules. When it does not, admission stops (a UsageError, exit 2) before
anything is written, saying what is missing and that ``--relock`` re-resolves the lock for every task. A
missing lock (the first synthetic task of a checkout) is resolved as ``bench lock`` resolves it.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

from bench import pyast
from bench.errors import UsageError
from bench.spec.model import TaskSpec

RELOCK_OPTION = "--relock"
# Import names a locked distribution provides besides its own (normalised) name.
_EXTRA_IMPORT_NAMES = {"pytest": ("_pytest", "py")}
_LOCK_PYTHON = re.compile(r"^# Resolved by pip-compile for Python (\d+\.\d+)\b", re.MULTILINE)
_IMAGE_PYTHON = re.compile(r"^python(\d+\.\d+)=", re.MULTILINE)


def shares_lock(spec: TaskSpec) -> bool:
    from bench.spec.kind_registry import get_kind

    return get_kind(spec.kind).shared_lock


def ensure_shared_lock(spec: TaskSpec, root: Path, *, sandbox_name: str, relock: bool) -> Path:
    """The shared lock for ``spec``: kept when it serves it, resolved when missing or when ``relock``."""
    from bench.spec.kind_registry import get_kind

    path = root / spec.lockfile
    if relock or not path.exists():
        return get_kind(spec.kind).lock(spec, root, sandbox_name=sandbox_name, mirror=None)
    check_shared_lock(spec, root)
    return path


def check_shared_lock(spec: TaskSpec, root: Path) -> None:
    """Refuse (UsageError) a candidate the existing shared lock does not serve; nothing to check without one."""
    path = root / spec.lockfile
    if not path.exists():
        return
    gaps = lock_gaps(spec, root, path.read_text(encoding="utf-8"))
    if gaps:
        raise UsageError(
            f"{spec.task_id}: the shared lock {spec.lockfile} does not serve this task ({'; '.join(gaps)}). "
            f"Admission keeps that lock so no other task changes; {RELOCK_OPTION} re-resolves it for this "
            f"task, which changes the lock and the certificate of every synthetic task (the committed runs "
            f"then no longer reproduce until they are scored again)")


def lock_gaps(spec: TaskSpec, root: Path, lock_text: str) -> list[str]:
    """What the lock lacks for ``spec``: another Python than its image's, or packages its code imports."""
    from bench.environment.lock import Lock

    gaps = []
    lock_python = _LOCK_PYTHON.search(lock_text)
    image_python = image_python_version(spec.image, root)
    if lock_python and image_python and lock_python.group(1) != image_python:
        gaps.append(f"it was resolved for Python {lock_python.group(1)}, the image {spec.image} has "
                    f"Python {image_python}")
    provided = set()
    for requirement in Lock.from_text(lock_text).requirements:
        name = _normalise(requirement.name)
        provided.update((name, *_EXTRA_IMPORT_NAMES.get(name, ())))
    missing = sorted(set(third_party_imports(spec, root)) - provided)
    if missing:
        gaps.append(f"it pins nothing that provides {', '.join(missing)}")
    return gaps


def image_python_version(image: str, root: Path) -> str:
    """``3.13`` as the image's pinned Debian manifest names its interpreter, or "" when it does not say."""
    manifest = root / "images" / image / "manifest.txt"
    found = _IMAGE_PYTHON.findall(manifest.read_text(encoding="utf-8")) if manifest.is_file() else []
    return found[0] if len(set(found)) == 1 else ""


def third_party_imports(spec: TaskSpec, root: Path) -> tuple[str, ...]:
    """Top-level modules the task's initial, reference and test files import that neither the standard
    library nor the task itself provides (normalised as a distribution name)."""
    folder = root / spec.synthetic_dir
    own = {Path(path).parts[0].removesuffix(".py") for path in spec.source_files} | {"tests", "conftest"}
    found = set()
    for path in sorted(folder.glob("*/**/*.py")):
        if path.relative_to(folder).parts[0] not in ("initial", "reference", "tests"):
            continue
        try:
            tree = pyast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        except SyntaxError:
            continue  # the gate reports a task that does not compile
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                found.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                found.add(node.module.split(".")[0])
    outside = found - own - set(sys.stdlib_module_names) - {"__future__"}
    return tuple(sorted(_normalise(name) for name in outside))


def _normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name).lower()
