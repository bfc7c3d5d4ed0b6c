"""Real pull-request tasks: a repository at `base_sha`, the fix's tests overlaid, no history after base.

The repository is cloned once into a bare cache (from a local mirror when one is configured, else from its
URL) and every workspace is exported from it with `git archive`, so a workspace never holds the fix commit,
later refs or a remote pointing at them. The workspace gets a fresh one-commit repository of the base tree so
tools that want git (and diffs of a model's edit) work.
"""

from __future__ import annotations

import io
import os
import shutil
import stat
import tarfile
from dataclasses import dataclass
from pathlib import Path

from bench.errors import SourceError
from bench.source.git_command import git, git_try, has_commit
from bench.spec.model import TaskSpec
from bench.variables import cache_dir, get

SIDES = ("base", "fix")


@dataclass(frozen=True)
class GitOrigin:
    url: str  # where the cache was filled from (a mirror path or the public URL)
    cache: Path  # bare repository in the harness cache


def repo_url(repo: str) -> str:
    if "://" in repo or repo.startswith("/") or repo.endswith(".git"):
        return repo
    return f"https://github.com/{repo}.git"


def mirror_for(repo: str, mirror: Path | None = None) -> Path | None:
    """A local bare mirror for `owner/name`: an explicit path, or `$BENCH_MIRROR_DIR/owner+name[.git]`."""
    if mirror is not None:
        return _git_dir_in(mirror) or _raise(f"mirror {mirror} is not a git repository")
    base = get("BENCH_MIRROR_DIR")
    if not base:
        return None
    for name in (repo.replace("/", "+"), repo.replace("/", "+") + ".git"):
        found = _git_dir_in(Path(base) / name)
        if found:
            return found
    return None


def _git_dir_in(path: Path) -> Path | None:
    """The git dir at `path`, or one level below it (the fetch tool nests it)."""
    if (path / "objects").is_dir() and (path / "HEAD").is_file():
        return path
    if (path / ".git" / "objects").is_dir():
        return path / ".git"
    if path.is_dir():
        for child in sorted(path.iterdir()):
            if (child / "objects").is_dir() and (child / "HEAD").is_file():
                return child
    return None


def _raise(message: str):
    raise SourceError(message)


def ensure_cache(spec: TaskSpec, *, mirror: Path | None = None) -> GitOrigin:
    """A bare cache of the task's repository holding both base_sha and fix_sha."""
    source = mirror_for(spec.repo, mirror)
    url = str(source) if source else repo_url(spec.repo)
    cache = cache_dir() / "git" / (spec.repo.replace("/", "+").replace(":", "_") + ".git")
    if not cache.exists():
        make_bare(cache)
    missing = [sha for sha in (spec.base_sha, spec.fix_sha) if sha and not has_commit(cache, sha)]
    if missing:
        git(["fetch", "-q", "--no-tags", url, "+refs/heads/*:refs/remotes/origin/*",
             "+refs/pull/*:refs/remotes/pull/*"], git_dir=cache, check=False)
        still = [sha for sha in missing if not has_commit(cache, sha)]
        for sha in still:  # servers that allow fetching a reachable sha directly
            git(["fetch", "-q", "--no-tags", url, sha], git_dir=cache, check=False)
        still = [sha for sha in missing if not has_commit(cache, sha)]
        if still:
            raise SourceError(f"{spec.task_id}: commit(s) {', '.join(s[:12] for s in still)} not found in {url}")
    return GitOrigin(url=url, cache=cache)


def make_bare(cache: Path) -> None:
    """An empty bare repository at ``cache``, made aside and renamed into place. Two processes that both found
    none (two `bench probes` at once) race to the rename: the loser's is dropped and the winner's kept."""
    cache.parent.mkdir(parents=True, exist_ok=True)
    tmp = cache.with_name(cache.name + f".tmp{os.getpid()}")
    git(["init", "--bare", "-q", str(tmp)])
    try:
        os.replace(tmp, cache)
    except OSError:
        if not (cache / "HEAD").is_file():
            raise
        shutil.rmtree(tmp, ignore_errors=True)


def export_tree(git_dir: Path, sha: str, dest: Path) -> None:
    """Write the tree of `sha` into `dest` (no .git), refusing entries that escape `dest`."""
    data = git(["archive", "--format=tar", sha], git_dir=git_dir)
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        members = tar.getmembers()
        for member in members:
            target = os.path.normpath(member.name)
            if target.startswith("..") or os.path.isabs(target):
                raise SourceError(f"archive entry escapes the workspace: {member.name}")
        extract_members(tar, dest, has_filters=hasattr(tarfile, "tar_filter"))


def extract_members(tar: tarfile.TarFile, dest: Path, *, has_filters: bool) -> None:
    """Extract a checked archive. Extraction filters arrived in 3.11.4 (Debian 12 ships 3.11.2): without them,
    do what the "tar" filter does — refuse a member under another member that is a link, clear the high mode
    bits and group/other write — so both give the same tree."""
    if has_filters:
        tar.extractall(dest, filter="tar")
        return
    links = {os.path.normpath(m.name) for m in tar.getmembers() if m.issym() or m.islnk()}
    for member in tar.getmembers():
        parents = Path(os.path.normpath(member.name)).parents
        if any(str(parent) in links for parent in parents):
            raise SourceError(f"archive entry lies under a link: {member.name}")
        if not (member.issym() or member.islnk()):
            member.mode &= ~(stat.S_ISUID | stat.S_ISGID | stat.S_ISVTX | stat.S_IWGRP | stat.S_IWOTH)
    tar.extractall(dest)


def read_blob(git_dir: Path, sha: str, path: str) -> bytes | None:
    return git_try(["show", f"{sha}:{path}"], git_dir=git_dir)


def overlay(git_dir: Path, sha: str, paths: tuple[str, ...], dest: Path) -> None:
    """Copy `paths` as they are at `sha` over `dest`; a path absent at `sha` is removed."""
    for rel in paths:
        blob = read_blob(git_dir, sha, rel)
        target = dest / rel
        if target.is_symlink() or (target.exists() and not target.is_file()):
            raise SourceError(f"{rel} is not a regular file in the workspace")
        if blob is None:
            target.unlink(missing_ok=True)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(blob)


def describe_version(git_dir: Path, sha: str) -> str:
    """A version for setuptools-scm style builds, which cannot see history in the workspace."""
    out = (git_try(["describe", "--tags", "--abbrev=0", sha], git_dir=git_dir) or b"").decode().strip()
    version = out.lstrip("v") if out else ""
    return version if version and version[0].isdigit() else "0.0.0"
