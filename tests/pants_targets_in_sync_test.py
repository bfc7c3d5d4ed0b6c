"""Every committed task has its bench_task target: the generated BUILD files match the specs."""

from __future__ import annotations

from bench.gate.pants_targets import build_files
from bench.spec.load import discover, load_all
from bench.variables import find_root


def test_generated_build_files_match_the_task_specs():
    specs = load_all(discover(find_root()))
    stale = [str(path) for path, text in build_files(specs).items()
             if not path.exists() or path.read_text() != text]
    assert stale == [], f"run `bench pool sync-build`: {stale}"
