import io
import subprocess
import tarfile
from pathlib import Path

import pytest

from bench.errors import SourceError
from bench.source.git import export_tree, extract_members, make_bare


def _repo(tmp_path: Path) -> tuple[Path, str]:
    work = tmp_path / "work"
    work.mkdir()
    (work / "pkg").mkdir()
    (work / "pkg" / "mod.py").write_text("x = 1\n")
    (work / "run.sh").write_text("#!/bin/sh\n")
    (work / "run.sh").chmod(0o755)
    (work / "link").symlink_to("pkg/mod.py")
    env = {"GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@a", "GIT_COMMITTER_NAME": "a",
           "GIT_COMMITTER_EMAIL": "a@a", "PATH": "/usr/bin:/bin"}
    for argv in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "base"]):
        subprocess.run(["git", "-C", str(work), *argv], check=True, env=env)
    sha = subprocess.run(["git", "-C", str(work), "rev-parse", "HEAD"], check=True, capture_output=True,
                         text=True).stdout.strip()
    return work / ".git", sha


def _tree(root: Path) -> dict:
    return {str(p.relative_to(root)): (p.is_symlink(), p.stat().st_mode & 0o777 if not p.is_symlink() else 0,
                                        p.read_bytes() if p.is_file() and not p.is_symlink() else None)
            for p in sorted(root.rglob("*"))}


def test_export_tree_is_the_same_on_pythons_without_extraction_filters(tmp_path, monkeypatch):
    git_dir, sha = _repo(tmp_path)
    export_tree(git_dir, sha, tmp_path / "with")
    monkeypatch.delattr(tarfile, "tar_filter", raising=False)
    export_tree(git_dir, sha, tmp_path / "without")
    assert _tree(tmp_path / "with") == _tree(tmp_path / "without")
    assert (tmp_path / "without" / "link").readlink() == Path("pkg/mod.py")
    assert (tmp_path / "without" / "run.sh").stat().st_mode & 0o111


def test_a_member_under_a_link_is_refused_without_extraction_filters(tmp_path):
    data = io.BytesIO()
    with tarfile.open(fileobj=data, mode="w") as tar:
        link = tarfile.TarInfo("escape")
        link.type, link.linkname = tarfile.SYMTYPE, "/tmp"
        tar.addfile(link)
        tar.addfile(tarfile.TarInfo("escape/planted"), io.BytesIO(b""))
    data.seek(0)
    with tarfile.open(fileobj=data) as tar, pytest.raises(SourceError, match="under a link: escape/planted"):
        extract_members(tar, tmp_path / "out", has_filters=False)
    assert not (tmp_path / "out").exists()


def test_a_cache_another_process_made_first_is_kept_and_the_late_one_dropped(tmp_path):
    # Two `bench probes` at once both found no cache of boltons; the second rename failed with "Directory not
    # empty" and took its whole run down.
    cache = tmp_path / "git" / "acme+widgets.git"
    make_bare(cache)
    (cache / "marker").write_text("the first process's")
    make_bare(cache)  # the process that lost the race
    assert (cache / "marker").read_text() == "the first process's"
    assert sorted(p.name for p in cache.parent.iterdir()) == ["acme+widgets.git"]
