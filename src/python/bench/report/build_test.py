from __future__ import annotations

import random
import re

import pytest

from bench.errors import CheckFailed
from bench.report.build import build_report, records_digest
from bench.report.runs import parse_records
from bench.report.demo_records import synthetic_records


def read_all(paths) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in (paths.md, paths.html, *paths.pngs)}


@pytest.fixture(scope="module")
def synthetic_report(tmp_path_factory):
    out = tmp_path_factory.mktemp("report")
    return build_report(synthetic_records(seed=0), out)


def test_report_writes_markdown_html_and_every_referenced_png(synthetic_report):
    paths = synthetic_report
    markdown = paths.md.read_text()
    page = paths.html.read_text()
    referenced_md = set(re.findall(r"\]\(([^)]+\.png)\)", markdown))
    referenced_html = set(re.findall(r'<img src="([^"]+\.png)"', page))
    written = {path.name for path in paths.pngs}
    assert referenced_md == referenced_html == written
    assert written == {
        "attempts-scripted-synthetic.png",
        "classes-scripted-synthetic.png",
        "convergence-scripted-synthetic.png",
        "markov-scripted-synthetic.png",
    }
    for path in paths.pngs:
        assert path.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")


def test_report_leaves_no_temporary_files(synthetic_report):
    names = sorted(path.name for path in synthetic_report.md.parent.iterdir())
    assert not [name for name in names if name.startswith(".")]


def test_report_is_byte_identical_when_built_twice(synthetic_report, tmp_path):
    again = build_report(synthetic_records(seed=0), tmp_path / "again")
    assert read_all(again) == read_all(synthetic_report)


def test_report_does_not_depend_on_record_order(synthetic_report, tmp_path):
    records = synthetic_records(seed=0)
    random.Random(5).shuffle(records)
    shuffled = build_report(records, tmp_path / "shuffled")
    assert read_all(shuffled) == read_all(synthetic_report)


def test_report_contains_every_section(synthetic_report):
    markdown = synthetic_report.md.read_text()
    for heading in (
        "## Single attempts",
        "**pass@k",
        "## Convergence of the repair loop",
        "#### Feedback effect: full vs count-only",
        "exact McNemar p (two-sided binomial)",
        "#### Iterations to converge",
        "#### Loop vs resampling at equal budget",
        "#### Markov model of the loop",
        "Assumptions of the fit:",
        "Time-homogeneous",
    ):
        assert heading in markdown
    assert "certificate ×1" in markdown  # the skipped record kind is reported


def test_report_has_no_timestamps_or_absolute_paths(synthetic_report):
    for text in (synthetic_report.md.read_text(), synthetic_report.html.read_text()):
        assert not re.search(r"\b20\d\d-\d\d-\d\d", text)
        assert str(synthetic_report.md.parent) not in text


def test_report_names_the_records_digest(synthetic_report):
    assert records_digest(synthetic_records(seed=0)) in synthetic_report.md.read_text()


def small_loop(task: str, condition: str, solved_at: int | None, *, infra: bool = False) -> dict:
    turns = []
    for number in range(1, (solved_at or 3) + 1):
        outcome = "solved" if number == solved_at else ("infrastructure_error" if infra else "model_miss")
        turns.append({"turn": number, "outcome": outcome, "signature": f"s{number}", "candidate_digest": f"d{number}"})
    return {
        "kind": "loop", "task_id": task, "library": "lib", "difficulty": "easy", "model": "m/one",
        "condition": condition, "turns": turns, "budget": 3,
    }


def test_small_study_numbers_are_exact(tmp_path):
    records = [
        small_loop("t1", "full", 1),
        small_loop("t2", "full", 2),
        small_loop("t3", "full", None),
        small_loop("t4", "full", 1),
        small_loop("t1", "count-only", None),
        small_loop("t2", "count-only", 3),
        small_loop("t3", "count-only", None),
        small_loop("t4", "count-only", None),
        small_loop("t5", "count-only", None, infra=True),
    ]
    markdown = build_report(records, tmp_path).md.read_text()
    assert "| full | 4 | 3 | 0.750 | [0.301, 0.954] |" in markdown
    assert "| count-only | 4 | 1 | 0.250 | [0.046, 0.699] |" in markdown
    assert "| 0 (0 %) | 3 (75 %) | 1 |" in markdown  # count-only: 3 EXHAUSTED, 1 run excluded for infra
    assert "| discordant pairs (b, c) | 2, 0 |" in markdown
    assert "| exact McNemar p (two-sided binomial) | 0.5 |" in markdown  # 2·(1/2)²
    assert "| rate difference full − count-only | +0.500 [" in markdown
    assert "| 1 | 0.500 | 0.000 |" in markdown  # converged by turn 1: full 2 of 4, count-only 0 of 4
    assert "excluded from every rate: 1 loop runs" in markdown


def test_report_of_no_usable_records_says_so(tmp_path):
    paths = build_report([{"kind": "certificate"}], tmp_path)
    assert "No `loop` or `attempt` records in the input." in paths.md.read_text()
    assert paths.pngs == ()


def test_invalid_records_fail_before_anything_is_written(tmp_path):
    with pytest.raises(CheckFailed, match="record 1"):
        build_report([{"kind": "loop"}], tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_synthetic_records_cover_every_class_and_agree_with_the_classifier():
    parsed = parse_records(synthetic_records(seed=0))
    assert {run.convergence_class for run in parsed.loops} == {"CONVERGED", "STALLED", "OSCILLATING", "EXHAUSTED"}
    assert parsed.class_mismatches == ()
