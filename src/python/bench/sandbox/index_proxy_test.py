"""The index proxy's decisions (against loopback targets, no network) and a real download through a sandbox."""

from __future__ import annotations

import socket
import threading
import time
from pathlib import Path

import pytest

from bench.errors import SandboxError
from bench.sandbox.index_proxy import (
    SANDBOX_CA_BUNDLE,
    Decision,
    IndexProxy,
    address_denied,
    proxy_plan,
)
from bench.sandbox.protocol import ExecRequest, Limits, Mount, NetworkPolicy


class EchoServer:
    """A loopback TCP target that echoes what it receives and counts connections."""

    def __init__(self) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.accepted = 0
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            self.accepted += 1
            threading.Thread(target=self._echo, args=(conn,), daemon=True).start()

    @staticmethod
    def _echo(conn: socket.socket) -> None:
        with conn:
            while chunk := conn.recv(4096):
                conn.sendall(chunk)

    def close(self) -> None:
        self.listener.close()


@pytest.fixture
def echo():
    server = EchoServer()
    yield server
    server.close()


def _loopback_resolver(host: str, port: int) -> tuple[str, ...]:
    return ("127.0.0.1",)


def _send(proxy: IndexProxy, request: bytes) -> tuple[socket.socket, bytes]:
    client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    client.settimeout(60)  # generous: the machine running the tests may be heavily loaded
    client.connect(str(proxy.socket_path))
    try:
        client.sendall(request)
    except (BrokenPipeError, ConnectionResetError):
        pass  # refused before the request was read (connection bound): the answer is still there to read
    reply = b""
    while b"\r\n\r\n" not in reply:
        chunk = client.recv(4096)
        if not chunk:
            break
        reply += chunk
    return client, reply


def _status(proxy: IndexProxy, request: bytes) -> bytes:
    client, reply = _send(proxy, request)
    client.close()
    return reply.split(b"\r\n", 1)[0]


def test_tunnel_to_allowed_host_relays_bytes_both_ways(echo):
    with IndexProxy(("index.test",), allowed_ports=(echo.port,), resolver=_loopback_resolver,
                    is_denied=lambda address: False) as proxy:
        client, reply = _send(proxy, f"CONNECT index.test:{echo.port} HTTP/1.1\r\n\r\nearly".encode())
        assert reply.startswith(b"HTTP/1.1 200 ")
        client.sendall(b"-late")
        # The echo of "early" may arrive in the same read as the proxy's reply: it counts toward the echo.
        echoed = reply.split(b"\r\n\r\n", 1)[1]
        assert echoed + _recv_exactly(client, len(b"early-late") - len(echoed)) == b"early-late"
        client.close()
        assert proxy.decisions == (Decision("CONNECT", f"index.test:{echo.port}", 200, "tunnel", "127.0.0.1"),)


def _recv_exactly(conn: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = conn.recv(size - len(data))
        assert chunk, f"closed after {data!r}"
        data += chunk
    return data


def test_allowed_name_resolving_to_loopback_is_refused_without_connecting(echo):
    with IndexProxy(("index.test",), allowed_ports=(echo.port,), resolver=_loopback_resolver) as proxy:
        status = _status(proxy, f"CONNECT index.test:{echo.port} HTTP/1.1\r\n\r\n".encode())
        assert status == b"HTTP/1.1 403 Forbidden"
        assert proxy.decisions[0].status == 403
        assert proxy.decisions[0].reason.startswith("resolves only to denied addresses")
    assert echo.accepted == 0


def test_other_hosts_are_refused_before_any_name_lookup():
    looked_up = []
    with IndexProxy(resolver=lambda host, port: looked_up.append(host) or ("151.101.0.223",)) as proxy:
        assert _status(proxy, b"CONNECT example.com:443 HTTP/1.1\r\n\r\n") == b"HTTP/1.1 403 Forbidden"
        assert _status(proxy, b"CONNECT 127.0.0.1:443 HTTP/1.1\r\n\r\n") == b"HTTP/1.1 403 Forbidden"
        assert _status(proxy, b"CONNECT pypi.org.evil.test:443 HTTP/1.1\r\n\r\n") == b"HTTP/1.1 403 Forbidden"
        reasons = tuple(d.reason for d in proxy.decisions)
    assert reasons == ("host not allowed",) * 3
    assert looked_up == []


def test_other_ports_are_refused():
    with IndexProxy(resolver=lambda host, port: ("151.101.0.223",)) as proxy:
        assert _status(proxy, b"CONNECT pypi.org:80 HTTP/1.1\r\n\r\n") == b"HTTP/1.1 403 Forbidden"
        assert _status(proxy, b"CONNECT pypi.org:22 HTTP/1.1\r\n\r\n") == b"HTTP/1.1 403 Forbidden"
        assert _status(proxy, b"CONNECT pypi.org HTTP/1.1\r\n\r\n") == b"HTTP/1.1 403 Forbidden"
        assert {d.reason for d in proxy.decisions} == {"port not allowed"}


def test_plain_http_methods_are_refused():
    with IndexProxy() as proxy:
        status = _status(proxy, b"GET http://pypi.org/simple/ HTTP/1.1\r\nHost: pypi.org\r\n\r\n")
        assert status == b"HTTP/1.1 403 Forbidden"
        assert proxy.decisions == (Decision("GET", "http://pypi.org/simple/", 403, "only CONNECT is allowed"),)


def test_oversized_request_head_is_a_bad_request():
    with IndexProxy() as proxy:
        status = _status(proxy, b"CONNECT pypi.org:443 HTTP/1.1\r\nX: " + b"a" * 20000 + b"\r\n\r\n")
        assert status == b"HTTP/1.1 400 Bad Request"


def test_connections_beyond_the_bound_get_503(echo):
    with IndexProxy(("index.test",), allowed_ports=(echo.port,), resolver=_loopback_resolver,
                    is_denied=lambda address: False, max_connections=2) as proxy:
        held = [_send(proxy, f"CONNECT index.test:{echo.port} HTTP/1.1\r\n\r\n".encode())[0] for _ in range(2)]
        assert _status(proxy, b"CONNECT index.test:1 HTTP/1.1\r\n\r\n") == b"HTTP/1.1 503 Service Unavailable"
        for conn in held:
            conn.close()
        assert proxy.decisions[-1].reason == "too many connections"


def test_idle_tunnel_is_closed(echo):
    with IndexProxy(("index.test",), allowed_ports=(echo.port,), resolver=_loopback_resolver,
                    is_denied=lambda address: False, idle_seconds=0.5) as proxy:
        client, reply = _send(proxy, f"CONNECT index.test:{echo.port} HTTP/1.1\r\n\r\n".encode())
        assert reply.startswith(b"HTTP/1.1 200 ")
        started = time.monotonic()
        assert client.recv(10) == b""  # the proxy hung up on the silent tunnel
        assert time.monotonic() - started < 9
        client.close()


def test_silent_client_is_dropped_after_header_timeout():
    with IndexProxy(header_seconds=0.3) as proxy:
        client, reply = _send(proxy, b"CONNECT pypi.org:443 HTTP/1.1\r\n")
        assert reply.split(b"\r\n", 1)[0] == b"HTTP/1.1 400 Bad Request"
        client.close()


def test_socket_dir_is_removed_on_exit():
    with IndexProxy() as proxy:
        path = proxy.socket_path
        assert path.is_socket()
    assert not path.parent.exists()
    with pytest.raises(SandboxError):
        proxy.socket_path


@pytest.mark.parametrize(
    "address",
    ["127.0.0.1", "127.1.2.3", "10.1.2.3", "172.16.0.1", "192.168.1.1", "169.254.169.254", "100.64.0.1",
     "0.0.0.0", "224.0.0.1", "240.0.0.1", "255.255.255.255", "::1", "::", "fe80::1", "fc00::1", "fd12::1",
     "ff02::1", "::ffff:127.0.0.1", "::ffff:10.0.0.1"],
)
def test_local_and_special_addresses_are_denied(address):
    assert address_denied(address)


@pytest.mark.parametrize("address", ["151.101.0.223", "203.0.113.80", "2a04:4e42::223", "::ffff:151.101.0.223"])
def test_public_addresses_are_not_denied(address):
    assert not address_denied(address)


def test_proxy_plan_binds_socket_dir_forwarder_and_ca_bundle():
    with IndexProxy() as proxy:
        plan = proxy_plan(proxy)
        assert plan == proxy_plan(proxy.socket_path)
        assert plan.mounts[0] == Mount(proxy.socket_path.parent, "/run/bench-proxy")
    assert plan.mounts[1].sandbox_path == "/run/bench-proxy-bin/forwarder.py"
    assert plan.mounts[1].host_path.read_text().startswith('"""In-sandbox half of the index proxy')
    assert plan.mounts[2] == Mount(Path("/etc/ssl/certs/ca-certificates.crt"), SANDBOX_CA_BUNDLE)
    assert not any(m.writable for m in plan.mounts)
    assert dict(plan.env)["HTTPS_PROXY"] == "http://127.0.0.1:3128"
    assert dict(plan.env)["PIP_CERT"] == SANDBOX_CA_BUNDLE
    assert plan.argv_prefix == ("/usr/bin/python3", "/run/bench-proxy-bin/forwarder.py",
                                "/run/bench-proxy/proxy.sock", "3128", "--")


def test_proxy_plan_refuses_a_socket_that_is_not_there(tmp_path):
    with pytest.raises(SandboxError, match="does not exist"):
        proxy_plan(tmp_path / "proxy.sock")


# --- for real: pip inside a sandbox reaches PyPI through the proxy and nothing else -------------------------

# The image's bundled pip wheel runs directly (zipimport): no venv needed just to download.
PIP = "python3 $(echo /usr/share/python-wheels/pip-*.whl)/pip"
DOWNLOAD = f"{PIP} download --no-deps --only-binary :all: --no-cache-dir --retries 0 --timeout 20 -d /work/dl six"
PROBE = (
    "import socket, sys\n"
    "for target in sys.argv[1:]:\n"
    "    s = socket.create_connection(('127.0.0.1', 3128), timeout=20)\n"
    "    s.sendall(f'CONNECT {target} HTTP/1.1\\r\\nHost: {target}\\r\\n\\r\\n'.encode())\n"
    "    print(target, s.recv(100).split(b'\\r\\n')[0].decode())\n"
)


@pytest.fixture(scope="module")
def image_and_root():
    from bench.environment.image import ensure_image, unpack_image
    from bench.sandbox.conformance import SUITE_IMAGE

    image = ensure_image(SUITE_IMAGE)
    return image, unpack_image(image)


@pytest.fixture(scope="module", params=["docker", "bwrap"])
def backend(request):
    from bench.sandbox.registry import get_sandbox

    if request.param == "bwrap":
        yield get_sandbox("bwrap")
        return
    from bench.sandbox.dockerd import private_dockerd

    with private_dockerd() as url, pytest.MonkeyPatch.context() as patch:
        patch.setenv("BENCH_DOCKER_HOST", url)
        yield get_sandbox("docker")


def _run_in(backend, image_and_root, workdir: Path, script: str, *args: str, network, proxy=None):
    image, root = image_and_root
    env = (("PATH", "/usr/bin:/bin"), ("HOME", "/work"), ("PIP_DISABLE_PIP_VERSION_CHECK", "1"))
    request = ExecRequest(argv=("sh", "-c", script, "sh", *args), workdir=workdir, image_root=root, env=env,
                          image_digest=image.digest, network=network, limits=Limits(wall_seconds=180),
                          proxy_socket=proxy.socket_path if proxy is not None else None)
    return backend.run(request)


def test_pip_download_through_the_proxy_succeeds(backend, image_and_root, tmp_path):
    with IndexProxy() as proxy:
        result = _run_in(backend, image_and_root, tmp_path, DOWNLOAD, network=NetworkPolicy.INDEX_PROXY,
                         proxy=proxy)
        decisions = proxy.decisions
    assert result.exit_code == 0, result.stderr.decode(errors="replace")[-2000:]
    assert [p.name for p in (tmp_path / "dl").iterdir()][0].startswith("six-")
    assert {d.target for d in decisions if d.allowed} <= {"pypi.org:443", "files.pythonhosted.org:443"}
    assert "pypi.org:443" in {d.target for d in decisions if d.allowed}


def test_connect_elsewhere_from_the_sandbox_gets_403(backend, image_and_root, tmp_path):
    with IndexProxy() as proxy:
        script = 'python3 -c "$@"'
        result = _run_in(backend, image_and_root, tmp_path, script, PROBE, "example.com:443", "127.0.0.1:443",
                         "pypi.org:22", network=NetworkPolicy.INDEX_PROXY, proxy=proxy)
        statuses = tuple(d.status for d in proxy.decisions)
    assert result.stdout.decode().splitlines() == [
        "example.com:443 HTTP/1.1 403 Forbidden",
        "127.0.0.1:443 HTTP/1.1 403 Forbidden",
        "pypi.org:22 HTTP/1.1 403 Forbidden",
    ]
    assert statuses == (403, 403, 403)


def test_same_download_without_the_proxy_fails(backend, image_and_root, tmp_path):
    with IndexProxy() as proxy:
        result = _run_in(backend, image_and_root, tmp_path, DOWNLOAD, network=NetworkPolicy.NONE)
        assert proxy.decisions == ()
    assert result.exit_code not in (0, None)
    assert b"No matching distribution found for six" in result.stderr  # pip ran, but found no index
    assert not (tmp_path / "dl").exists() or not any((tmp_path / "dl").iterdir())


def test_forwarder_is_copied_world_readable_when_the_package_file_is_not_usable(monkeypatch):
    import shutil
    import stat

    from bench.sandbox import _forwarder, index_proxy

    original = Path(_forwarder.__file__).read_bytes()
    monkeypatch.setattr(_forwarder, "__file__", "/nonexistent/_forwarder.py")  # as inside a zipped pex
    monkeypatch.setattr(index_proxy, "_readable_forwarder", None)
    copy = index_proxy._forwarder_for_sandbox()
    try:
        assert copy.read_bytes() == original
        assert stat.S_IMODE(copy.stat().st_mode) == 0o644
        assert stat.S_IMODE(copy.parent.stat().st_mode) == 0o755
    finally:
        shutil.rmtree(copy.parent)
