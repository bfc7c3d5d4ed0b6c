"""The routes of docs/ARCHITECTURE.md §5, taken as a newcomer would: a model provider, a sandbox backend and a task
kind that live outside the harness (modules in a folder of their own, named in BENCH_PLUGINS), used through the
`bench` command with no edit of the harness."""

from __future__ import annotations

import json
import os
import sys
import textwrap
from pathlib import Path

from bench.testing.support import checkout_root, empty_checkout, run_bench

# A kind whose tasks are kept as two plain trees in the benchmark checkout: `<repo>/base/` (the buggy code)
# and `<repo>/fix/` (the fixed code and the tests). Only what differs from a git-backed task is written.
TOY_KINDS = '''
import shutil

from bench.kinds.base import RepositoryKind
from bench.spec.kind_registry import register
from bench.variables import find_root


@register("bundle")
class BundleKind(RepositoryKind):
    name = "bundle"
    provenance_source = "bundle"

    def library(self, spec):
        return "bundles"

    def repo_inputs(self, spec):
        return (spec.repo,)

    def lay_out(self, spec, side, dest, *, mirror):
        folder = find_root() / spec.repo
        shutil.copytree(folder / "base", dest, dirs_exist_ok=True)
        for path in spec.test_files + (spec.source_files if side == "fix" else ()):
            (dest / path).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(folder / "fix" / path, dest / path)
        return "1.0"

    def lock(self, spec, root, *, sandbox_name, mirror):
        return root / spec.lockfile  # pytest alone: the shared lock of the authored tasks
'''

BUGGY = "def add(a, b):\n    return a - b\n"
FIXED = "def add(a, b):\n    return a + b\n"
TESTS = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\ndef test_zero():\n    assert add(0, 0) == 0\n"
PATCH = "--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,2 @@\n def add(a, b):\n-    return a - b\n+    return a + b\n"

TOY_MODELS = '''
from bench.model.protocol import Completion, ModelParams
from bench.model.registry import register


@register("toy")
class Declining:
    """Answers every prompt without an edit."""

    deterministic = True

    def __init__(self, name, params=None):
        self.model_id = f"toy/{name}"
        self.params = params or ModelParams()

    def complete(self, messages, params, context):
        return Completion(text="I would rather not change anything.", prompt_tokens=1, completion_tokens=7)
'''

TOY_SANDBOXES = '''
from bench.sandbox.bwrap import BwrapSandbox
from bench.sandbox.registry import register


@register("toy-bwrap")
class ToyBwrap(BwrapSandbox):
    """bubblewrap under another name: enough to show a backend comes in from outside."""

    name = "toy-bwrap"
'''


def _plugin_env(folder: Path, modules: str) -> dict[str, str]:
    path = [str(folder), *(os.path.abspath(p) for p in sys.path if p)]
    return {"BENCH_PLUGINS": modules, "PYTHONPATH": os.pathsep.join(path)}


def test_a_model_provider_from_outside_the_harness_is_scored(tmp_path):
    (tmp_path / "plugins").mkdir()
    (tmp_path / "plugins" / "toy_models.py").write_text(textwrap.dedent(TOY_MODELS))
    out = tmp_path / "run"
    done = run_bench("score", "--model", "toy/declining", "--tasks", "synthetic.caesar_shift", "--out", str(out),
                     "--no-report", "--no-preflight", cwd=checkout_root(),
                     env=_plugin_env(tmp_path / "plugins", "toy_models"), timeout=900)
    assert done.returncode == 0, done.stderr[-2000:]
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert [(r["model"], r["task_id"], r["outcome"]) for r in records] == [
        ("toy/declining", "synthetic.caesar_shift", "invalid_edit")]


def test_an_unknown_provider_without_plugins_is_still_a_usage_error(tmp_path):
    done = run_bench("score", "--model", "toy/declining", "--tasks", "synthetic.caesar_shift",
                     "--out", str(tmp_path / "run"), "--no-preflight", cwd=checkout_root(), timeout=300)
    assert done.returncode == 2
    assert "unknown model provider 'toy'" in done.stderr
    assert not (tmp_path / "run").exists()


def test_a_plugin_that_cannot_be_imported_is_named(tmp_path):
    done = run_bench("score", "--model", "toy/declining", "--tasks", "synthetic.caesar_shift",
                     "--out", str(tmp_path / "run"), "--no-preflight", cwd=checkout_root(),
                     env={"BENCH_PLUGINS": "no_such_plugin_module"}, timeout=300)
    assert done.returncode == 2
    assert "BENCH_PLUGINS names 'no_such_plugin_module', which cannot be imported" in done.stderr


def test_a_sandbox_backend_from_outside_the_harness_passes_the_suite(tmp_path):
    (tmp_path / "plugins").mkdir()
    (tmp_path / "plugins" / "toy_sandboxes.py").write_text(textwrap.dedent(TOY_SANDBOXES))
    done = run_bench("sandbox", "check", "--backend", "toy-bwrap", "--only", "exit_codes", "--only", "argv_verbatim",
                     cwd=checkout_root(), env=_plugin_env(tmp_path / "plugins", "toy_sandboxes"), timeout=900)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "backend toy-bwrap, 2 cases" in done.stderr
    assert done.stdout.strip().splitlines()[-1] == "2 passed, 0 failed"


def _bundle_checkout(tmp_path: Path) -> Path:
    """A benchmark checkout of its own (BENCH_ROOT) holding one bundle task; images and locks are the harness's."""
    root = empty_checkout(tmp_path / "bench-root")
    lock = "lockfiles/tasks/synthetic.lock"
    (root / lock).write_bytes((checkout_root() / lock).read_bytes())
    folder = root / "tasks" / "bundles" / "adder"
    for side, files in (("base", {"calc.py": BUGGY}), ("fix", {"calc.py": FIXED, "tests/test_calc.py": TESTS})):
        for name, text in files.items():
            (folder / side / name).parent.mkdir(parents=True, exist_ok=True)
            (folder / side / name).write_text(text)
    spec = {"schema_version": 1, "task_id": "bundle.adder", "kind": "bundle", "repo": "tasks/bundles/adder",
            "source_files": ["calc.py"], "test_files": ["tests/test_calc.py"],
            "fail_to_pass": ["tests/test_calc.py::test_add"], "pass_to_pass": ["tests/test_calc.py::test_zero"],
            "image": "trixie-py313-slim", "lockfile": lock,
            "provenance": {"source": "bundle"}}
    (root / "tasks" / "bundles" / "adder.json").write_text(json.dumps(spec))
    return root


def test_a_task_kind_from_outside_the_harness_is_certified_and_scored(tmp_path):
    (tmp_path / "plugins").mkdir()
    (tmp_path / "plugins" / "toy_kinds.py").write_text(textwrap.dedent(TOY_KINDS))
    root = _bundle_checkout(tmp_path)
    env = {**_plugin_env(tmp_path / "plugins", "toy_kinds"), "BENCH_ROOT": str(root)}
    listed = run_bench("list", "kind:bundle", cwd=root, env=env, timeout=300)
    assert listed.returncode == 0, listed.stderr[-2000:]
    assert listed.stdout.split("\t")[:3] == ["bundle.adder", "bundle", "bundles"]
    certified = run_bench("certify", "kind:bundle", "--no-cache", cwd=root, env=env, timeout=900)
    assert certified.returncode == 0, certified.stderr[-2000:]
    predictions = tmp_path / "predictions.jsonl"
    predictions.write_text(json.dumps({"instance_id": "bundle.adder", "model_patch": PATCH}) + "\n")
    out = tmp_path / "run"
    done = run_bench("score", "--predictions", str(predictions), "--tasks", "kind:bundle", "--out", str(out),
                     "--no-report", cwd=root, env=env, timeout=900)
    assert done.returncode == 0, done.stderr[-2000:]
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert [(r["task_id"], r["task_kind"], r["library"], r["outcome"]) for r in records] == [
        ("bundle.adder", "bundle", "bundles", "solved")]


def test_a_spec_of_a_kind_nobody_registered_is_refused_by_name(tmp_path):
    root = _bundle_checkout(tmp_path)
    done = run_bench("validate", cwd=root, env={"BENCH_ROOT": str(root)}, timeout=300)
    assert done.returncode == 2
    assert "unknown task kind 'bundle' (known: mutation, pr, synthetic)" in done.stderr
