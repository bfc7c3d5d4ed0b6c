"""No answer in the environment, for a prepared task: the needles that would answer it, searched for in every
file its scored runs see (``bench.verdict.leak_scan`` does the searching; this knows tasks and their sources).
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

from bench.spec.model import TaskSpec


def release_needles(specs: Sequence[TaskSpec], scratch: Path) -> dict[str, bytes]:
    """The released module and mutated function of every task of one mutation release (fetched on the host,
    only to know what must not be visible)."""
    from bench.source.sdist import fetch_sdist, unpack_sdist
    from bench.verdict.leak_scan import mutation_needles

    tree = unpack_sdist(fetch_sdist(specs[0].sdist), scratch / "release")
    needles: dict[str, bytes] = {}
    for spec in specs:
        site = spec.mutation
        released = (tree / site.file).read_bytes()
        needles.update(mutation_needles(spec.task_id, released, site.start, site.end, site.file))
    return needles


def pr_needles(spec: TaskSpec, scratch: Path, mirror: Path | None) -> dict[str, bytes]:
    """The fix commit's version of every source file the fix changed."""
    from bench.source.workspace import prepare

    base = prepare(spec, "base", scratch / "base", mirror=mirror).path
    fix = prepare(spec, "fix", scratch / "fix", mirror=mirror).path
    needles = {}
    for path in spec.source_files:
        fixed = (fix / path).read_bytes() if (fix / path).is_file() else b""
        if fixed and fixed != ((base / path).read_bytes() if (base / path).is_file() else b""):
            needles[f"{spec.task_id}: fixed {path}"] = fixed
    return needles


def release_content_masks(spec: TaskSpec, mounts, scratch: Path) -> tuple[str, ...]:
    """Files of the task's venvs that hold its answer under another name (importlib_metadata, vendored by
    setuptools, carries more-itertools' ``bucket`` word for word): masked in its scored runs. For tasks whose
    answer is released code (the mutation kind asks); a PR task's fix is in no release its venv holds."""
    scratch.mkdir(parents=True, exist_ok=True)
    return masks_holding(release_needles((spec,), scratch), spec, mounts, scratch)


def masks_holding(needles: dict[str, bytes], spec: TaskSpec, mounts, scratch: Path) -> tuple[str, ...]:
    """Sandbox paths of the files in the read-only mounts (less what the named masks hide) holding a needle;
    a zip or wheel is masked whole."""
    from bench.verdict.leak_scan import scan
    from bench.verdict.masks import masks_for, task_packages

    (scratch / "empty").mkdir(exist_ok=True)
    (scratch / "empty-file").write_bytes(b"")
    named = masks_for(mounts, scratch / "no-image", task_packages(spec.source_files), empty_dir=scratch / "empty",
                      empty_file=scratch / "empty-file")
    roots = tuple((str(m.host_path), m.sandbox_path) for m in mounts if not m.writable)
    leaks = scan(roots, [m.sandbox_path for m in named], needles)
    return tuple(sorted({leak.where.split("!", 1)[0] for leak in leaks}))


def release_leaks(task, specs: Sequence[TaskSpec], needles: dict[str, bytes], scratch: Path) -> tuple:
    """What of its own answer each task of a release (all sharing ``task``'s environment) could read in its
    scored runs. One search of the environment less the named masks: a find in the image is a leak for any
    task; a find in a venv is one unless the prepared task's content masks cover it (every other task's runs
    get their own content masks from the same search, ``masks_holding``); and ``task``'s work dir holds none
    of its own answer."""
    from bench.verdict.leak_scan import environment_roots, scan
    from bench.verdict.masks import masks_for, task_packages

    (scratch / "empty").mkdir(exist_ok=True)
    (scratch / "empty-file").write_bytes(b"")
    named = masks_for(task.mounts, task.image_root, task_packages(task.spec.source_files),
                      empty_dir=scratch / "empty", empty_file=scratch / "empty-file")
    found = scan(environment_roots(task.mounts, task.image_root), [m.sandbox_path for m in named], needles)
    mine = task.spec.task_id + ":"
    leaks = [leak for leak in found if leak.where.startswith(("/usr/", "/etc/"))
             or leak.needle.startswith(mine) and leak.where.split("!", 1)[0] not in task.content_masks]
    own = {name: needle for name, needle in needles.items() if name.startswith(mine)}
    return tuple(leaks) + scan(((str(task.pristine), "/work"),), (), own)
