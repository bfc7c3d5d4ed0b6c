from __future__ import annotations

from bench import progress


def test_without_a_terminal_progress_is_a_line_per_step_with_counts(monkeypatch, capsys):
    monkeypatch.setattr(progress, "on_terminal", lambda: False)
    monkeypatch.delenv("BENCH_NO_PROGRESS", raising=False)
    bar = progress.Bar(3, "score m")
    for outcome in ("solved", "model_miss", "solved"):
        bar.update(1, last=outcome)
    bar.close()
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 3
    assert lines[0].startswith("score m: 1/3 (33%) elapsed 0m00s, ETA 0m0")
    assert lines[-1].startswith("score m: 3/3 (100%)")
    assert lines[-1].endswith("— model_miss 1, solved 2")


def test_long_runs_print_about_fifty_lines(monkeypatch, capsys):
    monkeypatch.setattr(progress, "on_terminal", lambda: False)
    monkeypatch.delenv("BENCH_NO_PROGRESS", raising=False)
    bar = progress.Bar(1000, "x")
    for _ in range(1000):
        bar.update(1)
    assert len(capsys.readouterr().err.splitlines()) == 50


def test_no_progress_prints_nothing(monkeypatch, capsys):
    monkeypatch.setattr(progress, "on_terminal", lambda: False)
    monkeypatch.setenv("BENCH_NO_PROGRESS", "1")
    assert list(progress.progress([1, 2], desc="x")) == [1, 2]
    bar = progress.Bar(2, "x")
    bar.update(1)
    assert capsys.readouterr().err == ""
