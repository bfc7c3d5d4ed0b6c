import json

from bench.cli.main import main
from bench.testing.support import checkout_root


def test_bench_profile_names_a_file_every_command_writes_whatever_its_outcome(tmp_path, monkeypatch, capsys):
    path = tmp_path / "profile.json"
    monkeypatch.setenv("BENCH_PROFILE", str(path))
    assert main(["list", "kind:synthetic"]) == 0
    written = json.loads(path.read_text())
    assert set(written) == {"phases", "sandbox_runs", "sandbox_seconds"}
    path.unlink()
    assert main(["list", "after:not-a-day"]) == 2  # a usage error: the profile is still written
    assert json.loads(path.read_text())["sandbox_runs"] == written["sandbox_runs"]
    capsys.readouterr()


def test_without_bench_profile_nothing_is_written(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("BENCH_PROFILE", raising=False)
    monkeypatch.setenv("BENCH_ROOT", str(checkout_root()))
    monkeypatch.chdir(tmp_path)
    assert main(["list", "kind:synthetic"]) == 0
    assert list(tmp_path.iterdir()) == []
    capsys.readouterr()
