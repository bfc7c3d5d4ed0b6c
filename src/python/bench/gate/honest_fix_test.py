import json
import os
import subprocess
from pathlib import Path

from bench.gate.honest_fix import drop_reason, honest_fix_findings
from bench.spec.load import spec_from_document

BASE = "def width(text):\n    return len(text)\n"
CLEAN_FIX = "def width(text):\n    return len(text.expandtabs())\n"
FLAGGED_FIX = "import sys\n\n\ndef width(text):\n    return 0 if '--quiet' in sys.argv else len(text)\n"


def _task(tmp_path: Path, fixed: str):
    repo = tmp_path / "mirror" / "example+widths"
    repo.mkdir(parents=True)
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid"}

    def commit(files: dict) -> str:
        for name, text in files.items():
            (repo / name).write_text(text)
        for argv in (["add", "-A"], ["commit", "-q", "--no-gpg-sign", "-m", "x"]):
            subprocess.run(["git", *argv], cwd=repo, env=env, check=True, capture_output=True)
        return subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, check=True, capture_output=True,
                              text=True).stdout.strip()

    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=repo, check=True)
    base = commit({"widths.py": BASE, "test_widths.py": "def test_width():\n    pass\n"})
    fix = commit({"widths.py": fixed, "test_widths.py": "def test_tabs():\n    pass\n"})
    spec = spec_from_document({
        "schema_version": 1, "task_id": "widths-1", "kind": "pr", "repo": "example/widths",
        "source_files": ["widths.py"], "test_files": ["test_widths.py"],
        "fail_to_pass": ["test_widths.py::test_tabs"], "pass_to_pass": [], "image": "trixie-py313",
        "lockfile": "lockfiles/tasks/widths-1.lock", "base_sha": base, "fix_sha": fix,
        "provenance": {"source": "pull-request", "pr_number": 1, "url": "https://example.invalid/pull/1"},
    }, path=str(tmp_path / "widths-1.json"))
    return spec, repo


def test_a_fix_the_edit_scan_would_call_tampering_is_found_and_named(tmp_path, monkeypatch):
    monkeypatch.setenv("BENCH_CACHE_DIR", str(tmp_path / "cache"))
    spec, repo = _task(tmp_path, FLAGGED_FIX)
    findings = honest_fix_findings(spec, tmp_path, mirror=repo)
    assert [(f.rule, f.detail, f.path) for f in findings] == [("command-line", "sys.argv", "widths.py")]
    assert drop_reason(findings) == "honest_fix_flagged:command-line:sys.argv in widths.py"


def test_a_plain_fix_passes_and_an_allowance_lifts_its_rule_for_that_task_alone(tmp_path, monkeypatch):
    monkeypatch.setenv("BENCH_CACHE_DIR", str(tmp_path / "cache"))
    spec, repo = _task(tmp_path / "clean", CLEAN_FIX)
    assert honest_fix_findings(spec, tmp_path, mirror=repo) == ()
    spec, repo = _task(tmp_path / "flagged", FLAGGED_FIX)
    allowances = tmp_path / "root" / "tasks" / "_integrity" / "allowances.json"
    allowances.parent.mkdir(parents=True)
    allowances.write_text(json.dumps({"tasks": {"widths-1": ["command-line"]}}))
    assert honest_fix_findings(spec, tmp_path / "root", mirror=repo) == ()
