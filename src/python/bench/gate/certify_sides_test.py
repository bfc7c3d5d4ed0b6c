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
