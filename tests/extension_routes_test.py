"""The routes of docs/ARCHITECTURE.md §5, taken as a newcomer would: a model provider and a sandbox backend that
live outside the harness (modules in a folder of their own, named in BENCH_PLUGINS), used through the `bench`
command with no edit of the harness."""

from __future__ import annotations

import json
import os
import sys
import textwrap
from pathlib import Path

from bench.testing.support import checkout_root, run_bench

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
