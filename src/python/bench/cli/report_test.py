from __future__ import annotations

import argparse
import json

import pytest

from bench.cli import report
from bench.errors import UsageError
from bench.report.demo_records import synthetic_records


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="bench")
    report.add_parser(parser.add_subparsers(dest="verb"))
    return parser.parse_args(argv)


def write_results(path, records) -> None:
    path.write_text("".join(json.dumps(record) + "\n" for record in records) + "\n")


def test_report_verb_writes_into_out_dir_and_prints_paths(tmp_path, capsys):
    results = tmp_path / "run.jsonl"
    write_results(results, synthetic_records(seed=1, tasks=6))
    args = parse(["report", str(results), "--out", str(tmp_path / "out")])
    assert args.run(args) == 0
    printed = capsys.readouterr()
    lines = printed.out.splitlines()
    assert lines[:2] == [str(tmp_path / "out" / "report.md"), str(tmp_path / "out" / "report.html")]
    assert all((tmp_path / "out" / line.rsplit("/", 1)[-1]).exists() for line in lines)
    assert len(lines) == 6  # md, html, four PNGs
    assert "report: 37 records" in printed.err  # 6 tasks × (3 loops + 3 attempts) + 1 certificate


def test_report_verb_defaults_to_report_beside_the_results_as_score_writes_it(tmp_path, capsys):
    results = tmp_path / "run.jsonl"
    write_results(results, [{"kind": "attempt", "task_id": "t", "model": "m", "outcome": "solved"}])
    args = parse(["report", str(results)])
    assert args.run(args) == 0
    assert (tmp_path / "report" / "report.html").is_file()


def test_report_verb_takes_a_run_folder(tmp_path, capsys):
    run = tmp_path / "run"
    run.mkdir()
    write_results(run / "results.jsonl", [{"kind": "attempt", "task_id": "t", "model": "m", "outcome": "solved"}])
    args = parse(["report", str(run)])
    assert args.run(args) == 0
    assert (run / "report" / "report.md").is_file()
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(UsageError, match="holds no results.jsonl"):
        args = parse(["report", str(empty)])
        args.run(args)


def test_report_verb_missing_results_is_a_usage_error(tmp_path):
    args = parse(["report", str(tmp_path / "absent.jsonl")])
    with pytest.raises(UsageError, match="results file not found"):
        args.run(args)


def test_report_verb_names_the_line_of_invalid_json(tmp_path):
    results = tmp_path / "run.jsonl"
    results.write_text('{"kind": "certificate"}\n\n{not json\n')
    args = parse(["report", str(results)])
    with pytest.raises(UsageError, match=r"run.jsonl:3: not valid JSON"):  # bad input: exit 2
        args.run(args)


def test_report_help_shows_an_example():
    parser = argparse.ArgumentParser(prog="bench")
    sub = report.add_parser(parser.add_subparsers(dest="verb"))
    assert "bench report results/runs/scripted-study/20261201-101500" in sub.format_help()


def _checkout_with_committed_run(tmp_path):
    root = tmp_path / "checkout"
    (root / "tasks").mkdir(parents=True)
    (root / "pants.toml").write_text("")
    run = root / "results" / "study" / "some-model"
    run.mkdir(parents=True)
    write_results(run / "results.jsonl", [{"kind": "attempt", "task_id": "t", "model": "m", "outcome": "solved"}])
    (run / "report").mkdir()
    (run / "report" / "report.md").write_text("the committed report\n")
    return root, run


def test_report_of_a_committed_run_is_written_outside_it_and_says_where(tmp_path, capsys, monkeypatch):
    root, run = _checkout_with_committed_run(tmp_path)
    monkeypatch.delenv("BENCH_ROOT", raising=False)
    args = parse(["report", str(run)])
    assert args.run(args) == 0
    printed = capsys.readouterr()
    elsewhere = root / "results" / "runs" / "reports" / "study-some-model"
    assert printed.out.splitlines()[0] == str(elsewhere / "report.md")
    assert f"its report/ is left as it is and this one is written to {elsewhere}" in printed.err
    assert (run / "report" / "report.md").read_text() == "the committed report\n"
    assert sorted(p.name for p in (run / "report").iterdir()) == ["report.md"]


def test_report_in_place_rewrites_a_committed_run_when_asked(tmp_path, capsys, monkeypatch):
    root, run = _checkout_with_committed_run(tmp_path)
    monkeypatch.delenv("BENCH_ROOT", raising=False)
    for flag in ("--in-place", "--update-reference"):
        args = parse(["report", str(run), flag])
        assert args.run(args) == 0
        assert capsys.readouterr().out.splitlines()[0] == str(run / "report" / "report.md")
        assert (run / "report" / "report.md").read_text() != "the committed report\n"
    assert not (root / "results" / "runs").exists()
