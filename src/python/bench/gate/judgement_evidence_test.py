"""Judgement version 4 on small real git repositories: a title alone admits nothing; the project's changelog
(read at the fix and at the release that shipped it), a regression of the same release or the base failing its
own unchanged test admit a fix; a swapped documented exception, an inverted test, expected structures that
gain entries and an entry under Added read as changes; a later commit setting the expectation back unseats it."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from bench.gate.judge_inputs import fix_change
from bench.gate.judgement import judge
from bench.spec.load import spec_from_document

AREA_WRONG = "def area(w, h):\n    return w + h\n"
AREA_RIGHT = "def area(w, h):\n    return w * h\n"
TEST_RIGHT = "from shapes import area\n\n\ndef test_area():\n    assert area(2, 3) == 6\n"
DAY = 86400


class Repo:
    def __init__(self, path: Path) -> None:
        self.path, self.when = path, 1_700_000_000
        path.mkdir(parents=True)
        self._git("init", "-q", "-b", "main")

    def _git(self, *argv: str) -> str:
        env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid",
               "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid",
               "GIT_AUTHOR_DATE": f"@{self.when} +0000", "GIT_COMMITTER_DATE": f"@{self.when} +0000"}
        return subprocess.run(["git", *argv], cwd=self.path, env=env, check=True, capture_output=True,
                              text=True).stdout.strip()

    def commit(self, files: dict[str, str], message: str = "x", days: int = 1, tag: str = "") -> str:
        self.when += days * DAY
        for name, text in files.items():
            (self.path / name).parent.mkdir(parents=True, exist_ok=True)
            (self.path / name).write_text(text)
        self._git("add", "-A")
        self._git("commit", "-q", "--no-gpg-sign", "--allow-empty", "-m", message)
        if tag:
            self._git("tag", "-a", tag, "-m", tag)
        return self._git("rev-parse", "HEAD")


def _judged(repo: Repo, base: str, fix: str, title: str, fail_to_pass=("tests/test_s.py::test_area",),
            test_files=("tests/test_s.py",)):
    return judge(fix_change(_judged_spec(repo, base, fix, title, fail_to_pass, test_files), mirror=repo.path))


def _judged_spec(repo: Repo, base: str, fix: str, title: str, fail_to_pass=("tests/test_s.py::test_area",),
                 test_files=("tests/test_s.py",)):
    return spec_from_document({
        "schema_version": 1, "task_id": "shapes-3", "kind": "pr", "repo": "example/shapes",
        "source_files": ["shapes.py"], "test_files": list(test_files), "fail_to_pass": list(fail_to_pass),
        "pass_to_pass": [], "image": "trixie-py313", "lockfile": "lockfiles/tasks/shapes-3.lock",
        "base_sha": base, "fix_sha": fix,
        "provenance": {"source": "pull-request", "pr_number": 3, "title": title,
                       "url": "https://example.invalid/pull/3"},
    }, path="shapes-3.json")


def _fix_with_release(tmp_path, changelog: str, title: str = "fix: area"):
    repo = Repo(tmp_path / "shapes")
    base = repo.commit({"shapes.py": AREA_WRONG, "CHANGELOG.md": "# Changelog\n"}, tag="1.0")
    fix = repo.commit({"shapes.py": AREA_RIGHT, "tests/test_s.py": TEST_RIGHT}, title)
    repo.commit({"CHANGELOG.md": changelog}, "Release 1.1", tag="1.1")
    return repo, base, fix


def test_a_title_alone_admits_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("BENCH_CACHE_DIR", str(tmp_path / "cache"))
    repo, base, fix = _fix_with_release(tmp_path, "# Changelog\n\n## 1.1\n\n- Faster builds.\n")
    judged = _judged(repo, base, fix, "fix: area")
    assert (judged.verdict, judged.signals, judged.version) == ("unclear", ("title:bugfix",), "6")


def test_two_readings_that_find_the_bug_back_a_fix_title_and_one_false_reading_does_not(tmp_path, monkeypatch):
    from dataclasses import replace

    from bench.gate.judgement import judge as judge_change
    from bench.gate.pr_readings import parse

    monkeypatch.setenv("BENCH_CACHE_DIR", str(tmp_path / "cache"))
    repo, base, fix = _fix_with_release(tmp_path, "# Changelog\n\n## 1.1\n\n- Faster builds.\n")
    spec = _judged_spec(repo, base, fix, "fix: area")
    change = fix_change(spec, mirror=repo.path)

    def readings(*verdicts):
        found = parse({"shapes-3": [{"reading": f"reader {n}", "verdict": v, "why": "area's docstring says w*h"}
                                    for n, v in enumerate(verdicts)]})
        return found["shapes-3"].bug_confirmed

    assert readings("good", "questionable: R2") and not readings("good") and not readings("good", "false: R1")
    assert not readings("good", "questionable: R1")
    judged = judge_change(replace(change, read_as_bug=readings("good", "good")))
    assert (judged.verdict, judged.signals) == ("bugfix", ("title:bugfix", "read-twice:bug"))
    assert judge_change(replace(change, read_as_bug=False)).verdict == "unclear"


def test_two_readings_that_find_the_bug_admit_a_change_whose_title_names_neither_fix_nor_feature(tmp_path,
                                                                                                 monkeypatch):
    from dataclasses import replace

    from bench.gate.judgement import judge as judge_change

    monkeypatch.setenv("BENCH_CACHE_DIR", str(tmp_path / "cache"))
    repo, base, fix = _fix_with_release(tmp_path, "# Changelog\n\n## 1.1\n\n- Faster builds.\n")
    change = fix_change(_judged_spec(repo, base, fix, "Preserve the area of wide shapes"), mirror=repo.path)
    assert judge_change(change).verdict == "unclear"
    judged = judge_change(replace(change, read_as_bug=True))
    assert (judged.verdict, judged.signals) == ("bugfix", ("read-twice:bug",))
    assert judge_change(replace(change, title="Add wide shapes", read_as_bug=True)).verdict == "feature"


def test_a_release_entry_naming_the_pr_under_fixed_admits_the_fix(tmp_path, monkeypatch):
    monkeypatch.setenv("BENCH_CACHE_DIR", str(tmp_path / "cache"))
    log = "# Changelog\n\n## 1.1\n\n### Added\n\n- Volume (#4).\n\n### Fixed\n\n- Area multiplies (#3).\n"
    repo, base, fix = _fix_with_release(tmp_path, log)
    judged = _judged(repo, base, fix, "fix: area")
    assert (judged.verdict, judged.signals) == ("bugfix", ("project-entry:bugfix@1.1", "title:bugfix"))


def test_a_release_entry_naming_the_changed_function_in_code_markup_speaks_for_it(tmp_path, monkeypatch):
    monkeypatch.setenv("BENCH_CACHE_DIR", str(tmp_path / "cache"))
    log = ("Version History\n===============\n\n1.1\n---\n\n* Bug fixes\n    * :func:`area` multiplies now\n\n"
           "1.0\n---\n\n* :func:`area` was added\n")
    repo, base, fix = _fix_with_release(tmp_path, log)
    assert _judged(repo, base, fix, "fix: area").signals == ("project-entry:bugfix@1.1", "title:bugfix")


def test_a_fix_titled_change_the_changelog_files_under_added_is_a_feature(tmp_path, monkeypatch):
    monkeypatch.setenv("BENCH_CACHE_DIR", str(tmp_path / "cache"))
    log = ("Changelog\n=========\n\n1.1 (2025-10-18)\n----------------\n\n"
           "- [ADDED] Added weeks to the Catalan locale. `PR #3 <https://example.invalid/pull/3>`_\n"
           "- [FIXED] Fixed humanize limits. `PR #2 <https://example.invalid/pull/2>`_\n")
    repo, base, fix = _fix_with_release(tmp_path, log, title="fix: Catalan weeks")
    judged = _judged(repo, base, fix, "fix: Catalan weeks")
    assert (judged.verdict, judged.signals) == ("feature", ("project-entry:feature@1.1", "title:bugfix"))


def test_a_corrected_literal_that_a_recent_commit_added_with_the_bug_is_a_regression_fix(tmp_path, monkeypatch):
    monkeypatch.setenv("BENCH_CACHE_DIR", str(tmp_path / "cache"))
    for released_between, verdict in ((False, "bugfix"), (True, "change")):
        repo = Repo(tmp_path / f"shapes-{released_between}")
        repo.commit({"shapes.py": AREA_RIGHT, "tests/test_s.py": "def test_other():\n    pass\n"}, tag="1.0")
        # three days before the fix, one commit brings the bug and a test asserting the buggy value
        repo.commit({"shapes.py": AREA_WRONG, "tests/test_s.py": TEST_RIGHT.replace("== 6", "== 5")},
                    "Rework area", days=3)
        base = repo.commit({"README.md": "shapes\n"}, tag="1.1" if released_between else "")
        fix = repo.commit({"shapes.py": AREA_RIGHT, "tests/test_s.py": TEST_RIGHT}, "Fix invalid area")
        judged = _judged(repo, base, fix, "Fix invalid area")
        assert judged.verdict == verdict, released_between
        assert ("regression-fix:1/1" in judged.signals) is (not released_between)
        assert "changed-expectation:1/1" in judged.signals


def test_the_base_failing_its_own_unchanged_test_is_evidence_of_a_bug(tmp_path, monkeypatch):
    monkeypatch.setenv("BENCH_CACHE_DIR", str(tmp_path / "cache"))
    repo = Repo(tmp_path / "shapes")
    base = repo.commit({"shapes.py": AREA_WRONG, "tests/test_s.py": TEST_RIGHT})
    fix = repo.commit({"shapes.py": AREA_RIGHT}, "Fix area")
    judged = _judged(repo, base, fix, "Fix area")
    assert (judged.verdict, judged.signals) == ("bugfix", ("unchanged-test-fails:1/1", "title:bugfix"))


POP_BEFORE = ('def pop(items, index):\n    """Remove an item.\n\n    ``ValueError`` if *index* is past the end.\n'
              '    """\n    if index >= len(items):\n        raise ValueError\n    return items.pop(index)\n')
POP_AFTER = ('def pop(items, index):\n    """Remove an item.\n\n    ``IndexError`` if *index* is past the end.\n'
             '    """\n    if index >= len(items):\n        raise IndexError\n    return items.pop(index)\n')
POP_TEST = ("import pytest\nfrom shapes import pop\n\n\ndef test_pop():\n    with pytest.raises({}):\n"
            "        pop([], 1)\n")


def test_a_documented_exception_swapped_with_its_docstring_and_test_is_a_change(tmp_path, monkeypatch):
    monkeypatch.setenv("BENCH_CACHE_DIR", str(tmp_path / "cache"))
    repo = Repo(tmp_path / "shapes")
    base = repo.commit({"shapes.py": POP_BEFORE, "tests/test_s.py": POP_TEST.format("ValueError")})
    fix = repo.commit({"shapes.py": POP_AFTER, "tests/test_s.py": POP_TEST.format("IndexError"),
                       "changes/3.bugfix.rst": "pop raises IndexError.\n"}, "fix: pop past the end")
    judged = _judged(repo, base, fix, "fix: pop past the end", ("tests/test_s.py::test_pop",))
    assert judged.verdict == "change"
    assert judged.signals == ("project:bugfix", "inverted-test:tests/test_s.py::test_pop",
                              "changed-exception:pop:-ValueError+IndexError", "title:bugfix")


VALID_TEST = "from shapes import valid\n\n\ndef test_valid():\n    assert {}valid('a b')\n"


def test_an_existing_test_inverted_is_a_change_even_where_the_project_files_a_fix(tmp_path, monkeypatch):
    monkeypatch.setenv("BENCH_CACHE_DIR", str(tmp_path / "cache"))
    repo = Repo(tmp_path / "shapes")
    base = repo.commit({"shapes.py": "def valid(s):\n    return ' ' not in s\n",
                        "tests/test_s.py": VALID_TEST.format("not ")})
    fix = repo.commit({"shapes.py": "def valid(s):\n    return True\n", "tests/test_s.py": VALID_TEST.format(""),
                       "changes/3.bugfix.rst": "spaces are valid.\n"}, "Fix valid")
    judged = _judged(repo, base, fix, "Fix valid", ("tests/test_s.py::test_valid",))
    assert (judged.verdict, judged.signals) == (
        "change", ("project:bugfix", "inverted-test:tests/test_s.py::test_valid", "title:bugfix"))


TABLE_TEST = "from shapes import table\n\n\ndef test_area():\n    assert table() == {}\n"


def test_expected_structures_that_gain_entries_are_a_changed_expectation(tmp_path, monkeypatch):
    monkeypatch.setenv("BENCH_CACHE_DIR", str(tmp_path / "cache"))
    repo = Repo(tmp_path / "shapes")
    base = repo.commit({"shapes.py": "def table():\n    return {'a': 1}\n",
                        "tests/test_s.py": TABLE_TEST.format("{'a': 1}")})
    fix = repo.commit({"shapes.py": "def table():\n    return {'a': 1, 'b': 2}\n",
                       "tests/test_s.py": TABLE_TEST.format("{'a': 1, 'b': 2}")}, "fix: table misses b")
    judged = _judged(repo, base, fix, "fix: table misses b")
    assert (judged.verdict, judged.signals) == ("change", ("grown-expectation:1/1", "title:bugfix"))


def test_a_fix_whose_expectation_later_history_sets_back_is_not_admitted(tmp_path, monkeypatch):
    monkeypatch.setenv("BENCH_CACHE_DIR", str(tmp_path / "cache"))
    repo = Repo(tmp_path / "shapes")
    base = repo.commit({"shapes.py": AREA_WRONG, "tests/test_s.py": TEST_RIGHT.replace("== 6", "== 5")})
    fix = repo.commit({"shapes.py": AREA_RIGHT, "tests/test_s.py": TEST_RIGHT, "changes/3.bugfix.rst": "area.\n"},
                      "Fix area")
    assert _judged(repo, base, fix, "Fix area").verdict == "bugfix"
    repo.commit({"shapes.py": AREA_WRONG, "tests/test_s.py": TEST_RIGHT.replace("== 6", "== 5")}, "Back to sums")
    judged = _judged(repo, base, fix, "Fix area")
    assert judged.verdict == "unclear"
    assert "reversed-later:tests/test_s.py::test_area" in judged.signals
