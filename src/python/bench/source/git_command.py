"""Everything that runs the git command line. Git only reads and writes repository data here; a repository's
hooks, filters and configuration never run (hooks are not cloned, global/system config is ignored)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Sequence

from bench.errors import SourceError

# Fixed identity and dates: commits made by the harness have the same sha on every machine.
FIXED_IDENTITY = {
    "GIT_AUTHOR_NAME": "loopcontrolbench",
    "GIT_AUTHOR_EMAIL": "bench@loopcontrolbench.invalid",
    "GIT_COMMITTER_NAME": "loopcontrolbench",
    "GIT_COMMITTER_EMAIL": "bench@loopcontrolbench.invalid",
    "GIT_AUTHOR_DATE": "2000-01-01T00:00:00+0000",
    "GIT_COMMITTER_DATE": "2000-01-01T00:00:00+0000",
}


def git_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": "/nonexistent",
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": "/dev/null",
        "GIT_TERMINAL_PROMPT": "0",
        "LC_ALL": "C",
        **FIXED_IDENTITY,
    }
    # Honour the user's url.<base>.insteadOf rewrites (how mirrors are usually configured) and CA settings.
    for key in ("GIT_SSL_CAINFO", "GIT_CONFIG_COUNT") + tuple(
        k for k in os.environ if k.startswith(("GIT_CONFIG_KEY_", "GIT_CONFIG_VALUE_"))
    ):
        if key in os.environ:
            env[key] = os.environ[key]
    env.update(extra or {})
    return env


def git(args: Sequence[str], *, cwd: Path | None = None, git_dir: Path | None = None, input: bytes | None = None,
        check: bool = True) -> bytes:
    argv = ["git", "-c", "core.hooksPath=/dev/null", "-c", "protocol.file.allow=always",
            "-c", "advice.detachedHead=false", "-c", "init.defaultBranch=main"]
    if git_dir is not None:
        argv += ["--git-dir", str(git_dir)]
    argv += list(args)
    proc = subprocess.run(argv, cwd=cwd, env=git_env(), input=input, capture_output=True)
    if check and proc.returncode != 0:
        message = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        raise SourceError(f"git {' '.join(args[:3])} failed: {message[-1] if message else proc.returncode}")
    return proc.stdout


def git_try(args: Sequence[str], *, git_dir: Path) -> bytes | None:
    """Run git; its stdout, or None when it failed (for questions whose answer may be "no")."""
    proc = subprocess.run(["git", "--git-dir", str(git_dir), *args], env=git_env(), capture_output=True)
    return proc.stdout if proc.returncode == 0 else None


def has_commit(git_dir: Path, sha: str) -> bool:
    return git_try(["cat-file", "-e", f"{sha}^{{commit}}"], git_dir=git_dir) is not None
