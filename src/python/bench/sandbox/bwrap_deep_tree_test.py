"""A run that leaves a 1,500-deep tree of mode-0 dirs (and a link to a host file) in its work dir: the run
still returns a result, the whole tree is handed back to the work dir's owner, and remove_tree clears it."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

from bench.environment.image import suite_image
from bench.sandbox.bwrap import BwrapSandbox
from bench.sandbox.cleanup import remove_tree, scratch_dir
from bench.sandbox.protocol import ExecRequest

DEPTH = 1500
SCRIPT = textwrap.dedent(f"""
    import os
    for _ in range({DEPTH}):
        os.mkdir("d")
        os.chdir("d")
    os.symlink("/etc/passwd", "link")
    with open("f", "w") as handle:
        handle.write("x")
    for _ in range({DEPTH}):
        os.chdir("..")
        os.chmod("d", 0)
    print("built")
""")


def _owners(root: Path) -> tuple[int, set[int]]:
    """(depth, uids of every entry), read level by level through fds (the paths are too long to name)."""
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW
    fd, depth, uids = os.open(root, flags), 0, {os.stat(root).st_uid}
    try:
        while True:
            names = os.listdir(fd)
            uids |= {os.stat(n, dir_fd=fd, follow_symlinks=False).st_uid for n in names}
            if "d" not in names:
                return depth, uids
            child = os.open("d", flags, dir_fd=fd)
            os.close(fd)
            fd, depth = child, depth + 1
    finally:
        os.close(fd)


def test_run_leaving_a_1500_deep_mode_0_tree_is_handed_back_and_removed():
    image_root, digest = suite_image()
    with scratch_dir(prefix="bench-test-") as scratch:
        work = scratch / "work"
        work.mkdir()
        request = ExecRequest(argv=("python3", "-c", SCRIPT), workdir=work, image_root=image_root,
                              image_digest=digest, env=(("PATH", "/usr/bin:/bin"),))
        result = BwrapSandbox().run(request)
        assert result.ok and result.stdout.strip() == b"built", result.stderr[-500:]
        assert _owners(work) == (DEPTH, {os.getuid()})
        assert Path("/etc/passwd").stat().st_uid == 0
        remove_tree(work)
        assert not work.exists()
