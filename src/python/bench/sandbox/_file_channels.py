"""Channels as files (docker backend): the daemon starts the container, so no descriptor of ours reaches it.

Each channel is a file in a private folder bound at a random path: send channels read-only, receive channels
in a writable folder, read back after the run without following links or blocking, regular files only,
bounded. This is weaker than the bwrap backend's descriptors (the process can reach the file by path for the
whole run, so it can rewrite what it wrote); docs/verdict-integrity.md says so.
"""

from __future__ import annotations

import os
import secrets
import stat
import tempfile
from pathlib import Path

from bench.sandbox.cleanup import remove_tree
from bench.sandbox.protocol import Channel, Mount, Received, channel_variable


class FileChannels:
    def __init__(self, channels: tuple[Channel, ...]) -> None:
        self.channels = channels
        self.scratch = Path(tempfile.mkdtemp(prefix="bench-channels-"))
        place = f"/run/bench-{secrets.token_hex(8)}"
        sent, taken = self.scratch / "send", self.scratch / "receive"
        sent.mkdir()
        taken.mkdir()
        os.chmod(sent, 0o755)
        mounts, env = [], []
        for channel in channels:
            folder, where = (taken, "receive") if channel.receive else (sent, "send")
            path = folder / channel.name
            path.write_bytes(channel.send)
            os.chmod(path, 0o644)
            env.append((channel_variable(channel.name), f"{place}/{where}/{channel.name}"))
        if any(c.receive for c in channels):
            mounts.append(Mount(taken, f"{place}/receive", writable=True))
        if any(not c.receive for c in channels):
            mounts.append(Mount(sent, f"{place}/send"))
        self.mounts, self.env = tuple(mounts), tuple(env)

    def collect(self) -> tuple[Received, ...]:
        found = []
        for channel in self.channels:
            if channel.receive:
                data, truncated = read_bounded(self.scratch / "receive" / channel.name, channel.receive)
                found.append(Received(channel.name, data, truncated))
        return tuple(found)

    def close(self) -> None:
        remove_tree(self.scratch)


def read_bounded(path: Path, cap: int) -> tuple[bytes, bool]:
    """At most ``cap`` bytes of a regular file, opened without following a link and without blocking (a FIFO
    or device put in its place reads as empty); whether there was more."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return b"", False
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return b"", False
        chunks, size = [], 0
        while size <= cap:
            chunk = os.read(fd, min(1 << 20, cap + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        data = b"".join(chunks)
        return data[:cap], len(data) > cap
    except OSError:
        return b"", False
    finally:
        os.close(fd)
