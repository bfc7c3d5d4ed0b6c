"""The in-sandbox forwarder, run here on the host: TCP on loopback → unix socket, then the child's status."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from bench.sandbox import _forwarder

FORWARDER = Path(_forwarder.__file__)  # run as a script, as it is inside the sandbox
CLIENT = (
    "import socket, sys\n"
    "s = socket.create_connection(('127.0.0.1', int(sys.argv[1])), timeout=10)\n"
    "s.sendall(b'ping')\n"
    "s.shutdown(socket.SHUT_WR)\n"
    "data = b''\n"
    "while chunk := s.recv(100):\n"
    "    data += chunk\n"
    "print(data.decode())\n"
    "sys.exit(7)\n"
)


@pytest.fixture
def unix_echo(tmp_path):
    path = tmp_path / "echo.sock"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))
    server.listen(4)

    def serve() -> None:
        conn, _ = server.accept()
        with conn:
            while chunk := conn.recv(100):
                conn.sendall(chunk.upper())

    threading.Thread(target=serve, daemon=True).start()
    yield path
    server.close()


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _forward(socket_path: Path, port: int, *command: str) -> subprocess.CompletedProcess:
    argv = [sys.executable, str(FORWARDER), str(socket_path), str(port), "--", *command]
    return subprocess.run(argv, capture_output=True, text=True, timeout=60)


def test_relays_loopback_tcp_to_the_unix_socket_and_exits_with_the_childs_code(unix_echo):
    port = _free_port()
    done = _forward(unix_echo, port, sys.executable, "-c", CLIENT, str(port))
    assert (done.returncode, done.stdout) == (7, "PING\n")


def test_child_killed_by_a_signal_exits_128_plus_n(tmp_path):
    done = _forward(tmp_path / "unused.sock", _free_port(), "sh", "-c", "kill -TERM $$")
    assert done.returncode == 128 + 15


def test_missing_command_exits_127(tmp_path):
    done = _forward(tmp_path / "unused.sock", _free_port(), str(tmp_path / "no-such-program"))
    assert done.returncode == 127
    assert "cannot run" in done.stderr


def test_without_separator_it_is_a_usage_error(tmp_path):
    done = subprocess.run([sys.executable, str(FORWARDER), str(tmp_path / "s"), "3128", "true"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
