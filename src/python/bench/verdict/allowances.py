"""Per-task exceptions to the verdict-integrity rules, for tasks whose honest fix itself breaks a rule.

markdown-991's fix measures the stack depth by walking frames (``sys._getframe``, ``f_back``): for that task a
frame walk is no evidence of tampering, in the static scan or in the audit guard. Each exception is found by
``scripts/honest_fixes.py`` (the honest fix of every task through the scoring path) and lives as data in
``tasks/_integrity/allowances.json``; the canary tests and the other rules still hold for such a task.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

from bench.errors import SpecError

ALLOWANCES_FILE = Path("tasks") / "_integrity" / "allowances.json"


def allowed_rules(root: Path, task_id: str) -> tuple[str, ...]:
    return _load(Path(root).resolve()).get(task_id, ())


@functools.lru_cache(maxsize=8)
def _load(root: Path) -> dict[str, tuple[str, ...]]:
    path = root / ALLOWANCES_FILE
    if not path.is_file():
        return {}
    try:
        tasks = json.loads(path.read_text(encoding="utf-8"))["tasks"]
        return {str(task): tuple(str(rule) for rule in rules) for task, rules in tasks.items()}
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise SpecError(f"cannot read the allowances: {exc}", kind="bad_allowances", path=str(path)) from exc
