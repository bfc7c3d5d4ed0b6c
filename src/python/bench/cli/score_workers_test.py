"""`bench score` runs one thread more than the cores by default (bench.cli.score.default_workers)."""

from __future__ import annotations

from bench.cli import score
from bench.cli.main import build_parser
from bench.score import spare_core


def test_the_default_is_one_thread_more_than_the_cores(monkeypatch):
    monkeypatch.setattr(spare_core, "cores", lambda: 2)
    assert score.default_workers() == 3
    monkeypatch.setattr(spare_core, "cores", lambda: 16)
    args = build_parser().parse_args(["score", "--model", "scripted"])
    assert args.workers == 17


def test_an_explicit_count_wins(monkeypatch):
    monkeypatch.setattr(spare_core, "cores", lambda: 2)
    assert build_parser().parse_args(["score", "--model", "scripted", "--workers", "1"]).workers == 1
