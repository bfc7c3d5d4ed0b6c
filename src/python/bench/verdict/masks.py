"""No answer in the environment: hide every other copy of the task's own code from a scored run.

pip vendors idna byte-identical to the release the idna mutation tasks come from; setuptools and pkg_resources
vendor more_itertools; ensurepip bundles pip's wheel; a test dependency may pull in a released copy of the
task's own package. An edit that loads such a copy is answered by the copy. At test time each is covered by an
empty read-only bind: pip entirely (nothing under test needs it), ensurepip's bundled wheels (Debian's
/usr/share/python-wheels), and — in every
vendor folder and every site-packages — the entries named like the task's own top-level packages.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path
from typing import Iterable, Sequence

from bench.sandbox.protocol import Mount

WHEEL_DIR = "usr/share/python-wheels"
VENDOR_DIRS = frozenset({"_vendor", "vendor", "vendored", "_vendored", "extern", "_extern"})
_MAX_DEPTH = 7


def task_packages(source_files: Iterable[str]) -> tuple[str, ...]:
    """Top-level import names of the task's source files (``src/click/core.py`` → ``click``)."""
    from bench.spec.model import import_packages

    return import_packages(source_files)


def masks_for(mounts: Sequence[Mount], image_root: Path, packages: Sequence[str], *,
              empty_dir: Path, empty_file: Path) -> tuple[Mount, ...]:
    """Empty read-only binds over every copy of ``packages`` (and pip, ensurepip's wheels) the run would see."""
    roots = tuple((str(m.host_path), m.sandbox_path) for m in mounts if not m.writable)
    roots += ((str(image_root / "usr"), "/usr"),)
    found = _copies(roots, tuple(sorted(packages)))
    if (image_root / WHEEL_DIR).is_dir():  # Debian keeps ensurepip's wheels (pip vendors a dozen libraries) here
        found += (("/" + WHEEL_DIR, True),)
    return tuple(Mount(empty_dir if is_dir else empty_file, sandbox, mask=True) for sandbox, is_dir in found)


@functools.lru_cache(maxsize=256)
def _copies(roots: tuple[tuple[str, str], ...], packages: tuple[str, ...]) -> tuple[tuple[str, bool], ...]:
    wanted = set(packages) | {f"{p}.py" for p in packages}
    found: list[tuple[str, bool]] = []
    for host_root, sandbox_root in roots:
        for parent, dirs, files in _walk(host_root):
            name = os.path.basename(parent)
            here = lambda entry: sandbox_root + parent[len(host_root):] + "/" + entry  # noqa: E731
            if name in ("site-packages", "dist-packages"):
                found += [(here(d), True) for d in dirs if d == "pip" or d in wanted]
                found += [(here(f), False) for f in files if f in wanted]
                dirs[:] = [d for d in dirs if d != "pip" and d not in wanted]
            elif name in VENDOR_DIRS:
                found += [(here(d), True) for d in dirs if d in wanted]
                found += [(here(f), False) for f in files if f in wanted]
            elif name == "ensurepip" and "_bundled" in dirs:
                found.append((here("_bundled"), True))
    return tuple(sorted(set(found)))


def _walk(root: str):
    base = root.rstrip("/").count("/")
    for parent, dirs, files in os.walk(root, followlinks=False):
        if parent.count("/") - base >= _MAX_DEPTH:
            dirs[:] = []
        dirs[:] = [d for d in dirs if d not in ("__pycache__", "include", "share", "bin", "sbin")]
        yield parent, dirs, files
