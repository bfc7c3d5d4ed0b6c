import os
from pathlib import Path

from bench.sandbox import _frozen
from bench.sandbox.protocol import ExecRequest


def _request(tmp_path: Path) -> ExecRequest:
    (tmp_path / "a.py").write_text("")
    (tmp_path / "cache").mkdir()
    return ExecRequest(argv=("true",), workdir=tmp_path, image_root=tmp_path, frozen=("a.py", "cache", "gone.py"))


def test_where_the_flag_cannot_be_set_frozen_paths_become_read_only_binds(tmp_path, monkeypatch):
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    planned, freeze = _frozen.plan(_request(tmp_path))
    assert not freeze and planned.frozen == ()
    assert [(m.sandbox_path, m.writable) for m in planned.mounts] == [("/work/a.py", False), ("/work/cache", False)]


def test_as_root_frozen_paths_are_immutable_until_thawed(tmp_path):
    if os.geteuid() != 0:
        raise AssertionError("the harness's tests run as root (they drive real sandboxes)")
    request = _request(tmp_path)
    planned, freeze = _frozen.plan(request)
    assert freeze and planned is request
    frozen = _frozen.freeze_all(tmp_path, request.frozen)
    try:
        for change in (lambda: (tmp_path / "a.py").write_text("x"), lambda: (tmp_path / "cache" / "x").touch(),
                       lambda: (tmp_path / "a.py").unlink()):
            try:
                change()
            except PermissionError:
                continue
            raise AssertionError("a frozen path changed")
    finally:
        frozen.thaw()
    (tmp_path / "a.py").write_text("x")
    (tmp_path / "cache" / "x").touch()


def test_removing_a_tree_a_dead_run_left_frozen_thaws_it_first(tmp_path):
    from bench.sandbox.cleanup import remove_tree

    (tmp_path / "d" / "e").mkdir(parents=True)
    (tmp_path / "d" / "e" / "f.py").write_text("")
    assert _frozen.set_immutable(tmp_path / "d" / "e" / "f.py", True)
    assert _frozen.set_immutable(tmp_path / "d" / "e", True)
    remove_tree(tmp_path / "d")
    assert not (tmp_path / "d").exists()
