"""``scripts/history_pool.py --make-room``: a library over its cap gives up its last-chosen single-site engine
mutants, never a reverted fix or an omission, and the retired specs move (with git) to tasks/_retired."""

from __future__ import annotations

import importlib.util
import json
import subprocess

import bench.mutate.history  # noqa: F401  (the script imports these: named here so the build ships them)
import bench.mutate.operators  # noqa: F401
import bench.source.git  # noqa: F401
from bench.testing.support import checkout_root


def _script():
    spec = importlib.util.spec_from_file_location("history_pool_script", checkout_root() / "scripts" / "history_pool.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _spec(folder, name, *, operator="comparison", seed=0, index=0, commit=""):
    provenance = {"source": "mutation", **({"reverted_commit": commit} if commit else {})}
    doc = {"task_id": name, "provenance": provenance, "mutation": {"operator": operator, "seed": seed, "index": index}}
    (folder / f"{name}.json").write_text(json.dumps(doc))


def test_make_room_retires_the_last_chosen_engine_mutants_and_keeps_reverted_fixes_and_omissions(tmp_path):
    pool = tmp_path / "tasks" / "mutation-demo"
    pool.mkdir(parents=True)
    _spec(pool, "m.a", seed=0, index=5)
    _spec(pool, "m.b", seed=1, index=0)
    _spec(pool, "m.c", seed=1, index=2)
    _spec(pool, "m.d", seed=0, index=1)
    _spec(pool, "m.fix", operator="reverted_fix", seed=0, index=9, commit="ab" * 20)
    _spec(pool, "m.omit", operator="dropped_clause", seed=3, index=9)
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    subprocess.run(["git", "-C", str(tmp_path), "add", "-A"], check=True)
    script = _script()
    script.ROOT = tmp_path

    assert script.make_room("demo", 4) == ["m.b", "m.c"]
    assert sorted(p.stem for p in pool.glob("*.json")) == ["m.a", "m.d", "m.fix", "m.omit"]
    assert sorted(p.stem for p in (tmp_path / "tasks" / "_retired" / "mutation-demo").glob("*.json")) == ["m.b", "m.c"]
    assert script.make_room("demo", 4) == []  # at the cap: nothing more
