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


def test_a_resumed_run_starts_at_the_units_done_and_ends_at_100_percent(monkeypatch, capsys):
    # 10 units, 3 recorded by an interrupted run: the resume runs 7 and the last line says 10/10, not 7/10 (70%).
    monkeypatch.setattr(progress, "on_terminal", lambda: False)
    monkeypatch.delenv("BENCH_NO_PROGRESS", raising=False)
    bar = progress.Bar(10, "score m")
    bar.skip(3)
    for _ in range(7):
        bar.update(1, last="solved")
    bar.close()
    lines = capsys.readouterr().err.splitlines()
    assert lines[0].startswith("score m: 3/10 (30%, 3 resumed) elapsed 0m00s, ETA 0m00s")
    assert lines[1].startswith("score m: 4/10 (40%, 3 resumed)")
    assert lines[-1].startswith("score m: 10/10 (100%, 3 resumed)") and lines[-1].endswith("— solved 7")
    assert len(lines) == 8


def test_a_resumed_bar_on_a_terminal_counts_resumed_units_as_done(monkeypatch):
    monkeypatch.setattr(progress, "on_terminal", lambda: True)
    monkeypatch.delenv("BENCH_NO_PROGRESS", raising=False)
    bar = progress.Bar(10, "score m")
    bar.skip(3)
    for _ in range(7):
        bar.update(1)
    assert (bar._bar.n, bar._bar.total, bar._bar.initial) == (10, 10, 3)
    bar.close()
