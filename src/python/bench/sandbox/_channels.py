"""Channels as inherited descriptors (bwrap backend): a sealed memfd per send channel, a pipe per receive channel.

The sandboxed process gets each descriptor by inheritance and its number through ``BENCH_CHANNEL_<NAME>``
(``/dev/fd/N``); no name in its file system leads to them, so nothing it runs can open, link, rename or
replace what the host receives. A receive pipe's writing end is handed to the sandbox's uid, so a process
there may also reopen it through ``/dev/fd/N`` (pytest's JUnit writer opens its report by path).

The host drains every receive pipe from one thread, with a byte cap per channel (the rest is read and
dropped, so a writer never blocks on a full pipe) and never blocks itself: ``collect`` waits at most its
timeout for the writers to finish, then keeps what arrived.
"""

from __future__ import annotations

import fcntl
import os
import secrets
import selectors
import threading

from bench.errors import SandboxError
from bench.sandbox.protocol import Channel, Received, channel_variable

_SEALS = fcntl.F_SEAL_SEAL | fcntl.F_SEAL_WRITE | fcntl.F_SEAL_GROW | fcntl.F_SEAL_SHRINK
_POLL_SECONDS = 0.2


class OpenChannels:
    """The host's side of one run's channels; ``close`` on every way out."""

    def __init__(self, channels: tuple[Channel, ...], owner: tuple[int, int] | None) -> None:
        self.child_fds: list[int] = []
        self.env: list[tuple[str, str]] = []
        self._reads: dict[int, _Sink] = {}
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        # Made in a random order: the order of their inode numbers says nothing of which channel is which.
        order = sorted(channels, key=lambda _: secrets.randbits(32))
        try:
            for channel in order:
                fd = self._receive_end(channel, owner) if channel.receive else _sealed(channel)
                self.child_fds.append(fd)
                self.env.append((channel_variable(channel.name), f"/dev/fd/{fd}"))
        except BaseException:
            self.close()
            raise

    def _receive_end(self, channel: Channel, owner) -> int:
        read, write = os.pipe()
        self._reads[read] = _Sink(channel.name, channel.receive)
        if owner is not None:
            os.fchown(write, *owner)
            os.fchmod(write, 0o600)
        return write

    def started(self) -> None:
        """The process has its copies: close ours (so the pipes end when the sandbox's do) and start draining."""
        for fd in self.child_fds:
            os.close(fd)
        self.child_fds = []
        if self._reads:
            self._thread = threading.Thread(target=self._drain, name="bench-channels", daemon=True)
            self._thread.start()

    def wait(self, timeout: float) -> bool:
        """Wait up to ``timeout`` for every writer to close; whether they all did."""
        if self._thread is not None:
            self._thread.join(timeout)
            return not self._thread.is_alive()
        return True

    def collect(self, timeout: float) -> tuple[Received, ...]:
        """What arrived, once every writer has closed or ``timeout`` has passed (then what arrived so far)."""
        self.wait(timeout)
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        return tuple(Received(s.name, bytes(s.data), s.truncated) for s in self._reads.values())

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        for fd in (*self.child_fds, *self._reads):
            try:
                os.close(fd)
            except OSError:
                pass
        self.child_fds, self._reads = [], {}

    def _drain(self) -> None:
        selector = selectors.DefaultSelector()
        for fd in self._reads:
            os.set_blocking(fd, False)
            selector.register(fd, selectors.EVENT_READ)
        open_fds = set(self._reads)
        while open_fds and not self._stop.is_set():
            for key, _ in selector.select(_POLL_SECONDS):
                try:
                    chunk = os.read(key.fd, 1 << 16)
                except BlockingIOError:
                    continue
                if chunk:
                    self._reads[key.fd].take(chunk)
                else:
                    selector.unregister(key.fd)
                    open_fds.discard(key.fd)
        selector.close()


class _Sink:
    def __init__(self, name: str, cap: int) -> None:
        self.name, self.cap, self.data, self.truncated = name, cap, bytearray(), False

    def take(self, chunk: bytes) -> None:
        room = self.cap - len(self.data)
        if len(chunk) > room:
            self.truncated = True
        self.data += chunk[:max(room, 0)]


def _sealed(channel: Channel) -> int:
    fd = os.memfd_create(f"bench-{channel.name}", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
    try:
        view = memoryview(channel.send)
        while view:
            view = view[os.write(fd, view):]
        os.lseek(fd, 0, os.SEEK_SET)
        fcntl.fcntl(fd, fcntl.F_ADD_SEALS, _SEALS)  # the process reads it; nothing can change it
    except OSError as exc:
        os.close(fd)
        raise SandboxError(f"could not prepare channel {channel.name!r}: {exc}") from exc
    return fd
