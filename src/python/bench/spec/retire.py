"""Retiring a task: its spec leaves the pool for ``tasks/_retired/<its folder>/``, where committed runs that used
it still find it (``discover(..., retired=True)``) and nothing selects it."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path


def retire_spec(root: Path, spec_path: Path) -> Path:
    """Move one spec file into ``tasks/_retired/<its folder>/`` (``git mv`` when git tracks it); the new path."""
    source = Path(spec_path).resolve().relative_to(root)
    target = Path("tasks") / "_retired" / source.parent.name / source.name
    (root / target).parent.mkdir(parents=True, exist_ok=True)
    tracked = subprocess.run(["git", "ls-files", "--error-unmatch", str(source)], cwd=root,
                             capture_output=True).returncode == 0
    if tracked:
        subprocess.run(["git", "mv", str(source), str(target)], cwd=root, check=True)
    else:  # admitted since the last commit: it leaves the pool the same way, with no history
        os.replace(root / source, root / target)
    return target
