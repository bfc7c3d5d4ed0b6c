import threading
import time

from bench.errors import EnvironmentBuildError
from bench.gate import certify


class _Workspace:
    def __init__(self, path):
        self.path = path


def _patch(monkeypatch, events, fail=()):
    import bench.environment.venv as venv
    import bench.source.workspace as workspace

    def prepare(spec, side, dest, mirror=None):
        events.append(f"export {side} begins")
        time.sleep(0.05)
        events.append(f"export {side} ends")
        return _Workspace(dest)

    def prepare_workspace_env(path, environment, overlay_dir):
        side = overlay_dir.parent.name
        events.append(f"install {side} on {threading.current_thread().name.split('_')[0]}")
        if side in fail:
            raise EnvironmentBuildError(f"editable install of the {side} side failed")
        return f"env of {side}"

    monkeypatch.setattr(workspace, "prepare", prepare)
    monkeypatch.setattr(venv, "prepare_workspace_env", prepare_workspace_env)


def test_the_fix_side_is_exported_after_the_base_side_and_both_installed_in_their_own_threads(monkeypatch, tmp_path):
    events = []
    _patch(monkeypatch, events)
    prepared = certify._prepare_sides(None, tmp_path, environment=None, mirror=None)
    assert events.index("export fix begins") > events.index("export base ends")
    assert {e for e in events if e.startswith("install")} == {"install base on certify-side", "install fix on certify-side"}
    assert prepared["base"][1] == "env of base" and prepared["fix"][1] == "env of fix"


def test_a_sides_failure_is_kept_for_its_own_turn_never_raised_while_preparing(monkeypatch, tmp_path):
    events = []
    _patch(monkeypatch, events, fail=("fix",))
    prepared = certify._prepare_sides(None, tmp_path, environment=None, mirror=None)
    assert prepared["base"][1] == "env of base"
    assert isinstance(prepared["fix"], EnvironmentBuildError)
    try:
        certify._run_side(None, "fix", tmp_path, 3, prepared["fix"], None, None, None)
    except EnvironmentBuildError as error:
        assert "fix side failed" in str(error)
    else:
        raise AssertionError("the fix side's failure was not raised at its turn")


def test_when_the_base_side_cannot_be_exported_the_fix_side_is_not_prepared(monkeypatch, tmp_path):
    import bench.source.workspace as workspace

    events = []
    _patch(monkeypatch, events)

    def broken(spec, side, dest, mirror=None):
        events.append(f"export {side} begins")
        raise EnvironmentBuildError(f"{side} tree cannot be exported")

    monkeypatch.setattr(workspace, "prepare", broken)
    prepared = certify._prepare_sides(None, tmp_path, environment=None, mirror=None)
    assert events == ["export base begins"] and prepared["fix"] is None
    assert isinstance(prepared["base"], EnvironmentBuildError)


def _summary(side, index, had_report=True, timed_out=False):
    from bench.gate.sets import RunSummary

    return RunSummary(side, index, 0 if had_report else 2, timed_out, (("t::a", "passed"),), (), had_report)


def _fake_sides(monkeypatch, base_ends: bool, fix_fails: bool = False):
    """_run_side replaced: the base side's runs (the first ending the gate when asked), the fix side's made
    slowly, one at a time, stopping when told."""
    ran = {"base": 0, "fix": 0}

    def run_side(spec, side, scratch, k, prepared, sandbox, image, image_root, stop=None):
        runs = []
        for index in range(k):
            if stop is not None and stop.is_set():
                raise certify._Stopped(side)
            if side == "fix":
                time.sleep(0.05)
                if fix_fails:
                    raise EnvironmentBuildError("the fix side cannot install")
            ran[side] += 1
            runs.append(_summary(side, index, had_report=not (side == "base" and base_ends)))
            if side == "base" and base_ends:
                break
        return runs

    monkeypatch.setattr(certify, "_run_side", run_side)
    return ran


def test_the_sides_run_side_by_side_and_give_the_runs_of_running_them_in_turn(monkeypatch, tmp_path):
    ran = _fake_sides(monkeypatch, base_ends=False)
    seconds = {}
    runs = certify._run_sides(None, tmp_path, 3, {"base": 1, "fix": 1}, None, None, None, seconds)
    assert [(r.side, r.index) for r in runs] == [("base", 0), ("base", 1), ("base", 2), ("fix", 0), ("fix", 1),
                                                 ("fix", 2)]
    assert ran == {"base": 3, "fix": 3} and set(seconds) == {"base", "fix"}


def test_when_the_base_side_ends_the_gate_the_fix_side_stops_and_is_left_out_its_failure_too(monkeypatch,
                                                                                              tmp_path):
    ran = _fake_sides(monkeypatch, base_ends=True)
    runs = certify._run_sides(None, tmp_path, 3, {"base": 1, "fix": 1}, None, None, None, {})
    assert [(r.side, r.index) for r in runs] == [("base", 0)]
    assert ran["fix"] < 3  # stopped after the run it was making
    _fake_sides(monkeypatch, base_ends=True, fix_fails=True)
    runs = certify._run_sides(None, tmp_path, 3, {"base": 1, "fix": 1}, None, None, None, {})
    assert [(r.side, r.index) for r in runs] == [("base", 0)]


def test_a_fix_side_failure_counts_when_the_base_side_did_not_end_the_gate(monkeypatch, tmp_path):
    _fake_sides(monkeypatch, base_ends=False, fix_fails=True)
    try:
        certify._run_sides(None, tmp_path, 3, {"base": 1, "fix": 1}, None, None, None, {})
    except EnvironmentBuildError as error:
        assert "fix side cannot install" in str(error)
    else:
        raise AssertionError("the fix side's failure was lost")
