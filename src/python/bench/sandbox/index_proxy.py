"""The ``index-proxy`` network policy: HTTPS to the package index hosts and nothing else.

A sandbox under this policy still has no network. Its only way out is a unix socket bound into it, served by
:class:`IndexProxy` on the host: an HTTP CONNECT proxy that tunnels to an allowed host on an allowed port (443)
and refuses everything else with 403 — other hosts, other ports, other methods, and allowed names that resolve
to private, loopback, link-local, multicast or reserved addresses. Inside, ``_forwarder.py`` listens on
127.0.0.1:3128 and relays to the socket, so pip's ordinary ``HTTPS_PROXY`` support works unchanged.
TLS is end to end (the proxy sees only the CONNECT line), so the sandbox verifies the index's certificate
against the host's CA bundle, bound in read-only.
"""

from __future__ import annotations

import ipaddress
import os
import select
import shutil
import socket
import stat
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

from bench.errors import SandboxError
from bench.sandbox.protocol import Mount

DEFAULT_ALLOWED_HOSTS = ("pypi.org", "files.pythonhosted.org")
SOCKET_NAME = "proxy.sock"
SANDBOX_SOCKET_DIR = "/run/bench-proxy"
SANDBOX_FORWARDER = "/run/bench-proxy-bin/forwarder.py"
SANDBOX_CA_BUNDLE = "/run/bench-proxy-ca/ca.crt"
SANDBOX_PYTHON = "/usr/bin/python3"
FORWARDER_PORT = 3128
HOST_CA_BUNDLE = Path("/etc/ssl/certs/ca-certificates.crt")

# Never tunnel into these, whatever a name resolves to. Spelled out instead of ``is_private`` because that
# also covers the documentation ranges (TEST-NET-1/2/3, 2001:db8::/32), which some egress gateways use for
# the public index hosts; they are not routable on the internet, so allowing them exposes nothing local.
DENIED_NETWORKS = tuple(
    ipaddress.ip_network(net)
    for net in (
        "0.0.0.0/8",  # "this" network
        "10.0.0.0/8",  # private
        "100.64.0.0/10",  # carrier-grade NAT
        "127.0.0.0/8",  # loopback
        "169.254.0.0/16",  # link-local (cloud metadata services live here)
        "172.16.0.0/12",  # private
        "192.0.0.0/24",  # IETF protocol assignments
        "192.168.0.0/16",  # private
        "198.18.0.0/15",  # benchmarking
        "224.0.0.0/4",  # multicast
        "240.0.0.0/4",  # reserved, broadcast
        "::/128",  # unspecified
        "::1/128",  # loopback
        "fc00::/7",  # unique local (private)
        "fe80::/10",  # link-local
        "fec0::/10",  # site-local (deprecated)
        "ff00::/8",  # multicast
    )
)


def address_denied(address: str, denied=DENIED_NETWORKS) -> bool:
    """True for addresses no tunnel may reach (IPv4-mapped IPv6 is judged as the IPv4 address it is)."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if ip.is_loopback or ip.is_link_local or ip.is_multicast or ip.is_unspecified or ip.is_reserved:
        return True
    return any(ip.version == net.version and ip in net for net in denied)


def _resolve(host: str, port: int) -> tuple[str, ...]:
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return tuple(dict.fromkeys(info[4][0] for info in infos))


@dataclass(frozen=True)
class Decision:
    """One request and what the proxy did with it (``status`` is the HTTP status it answered)."""

    method: str
    target: str
    status: int
    reason: str
    address: str = ""

    @property
    def allowed(self) -> bool:
        return self.status == 200


class IndexProxy:
    """A CONNECT proxy on a unix socket in a private temp dir; use as a context manager."""

    def __init__(
        self,
        allowed_hosts: tuple[str, ...] = DEFAULT_ALLOWED_HOSTS,
        *,
        allowed_ports: tuple[int, ...] = (443,),
        max_connections: int = 32,
        idle_seconds: float = 60.0,
        header_seconds: float = 10.0,
        connect_seconds: float = 15.0,
        resolver=_resolve,
        is_denied=address_denied,
    ) -> None:
        self.allowed_hosts = tuple(h.lower().rstrip(".") for h in allowed_hosts)
        self.allowed_ports = tuple(allowed_ports)
        self.idle_seconds = idle_seconds
        self.header_seconds = header_seconds
        self.connect_seconds = connect_seconds
        self._resolver = resolver  # (host, port) -> addresses; replaceable in tests
        self._is_denied = is_denied  # address -> True when no tunnel may reach it
        self._slots = threading.BoundedSemaphore(max_connections)
        self._lock = threading.Lock()
        self._log: list[Decision] = []
        self._open: set[socket.socket] = set()
        self._closing = threading.Event()
        self._dir: Path | None = None
        self._listener: socket.socket | None = None
        self._acceptor: threading.Thread | None = None

    @property
    def socket_path(self) -> Path:
        if self._dir is None:
            raise SandboxError("IndexProxy is not running (use it as a context manager)")
        return self._dir / SOCKET_NAME

    @property
    def decisions(self) -> tuple[Decision, ...]:
        with self._lock:
            return tuple(self._log)

    def __enter__(self) -> IndexProxy:
        self._dir = Path(tempfile.mkdtemp(prefix="lcb-proxy-"))
        # The sandbox's unprivileged user must reach the socket through the bound directory.
        os.chmod(self._dir, 0o755)
        self._listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._listener.bind(str(self.socket_path))
        os.chmod(self.socket_path, 0o666)
        self._listener.listen(64)
        self._listener.settimeout(0.2)  # lets the accept loop notice close()
        self._acceptor = threading.Thread(target=self._accept_loop, name="index-proxy", daemon=True)
        self._acceptor.start()
        return self

    def __exit__(self, *exc_info) -> None:
        self._closing.set()
        if self._acceptor is not None:
            self._acceptor.join()
        with self._lock:
            for conn in tuple(self._open):
                _shutdown(conn)
        if self._listener is not None:
            self._listener.close()
        if self._dir is not None:
            shutil.rmtree(self._dir, ignore_errors=True)
        self._dir = None

    # --- serving ---

    def _accept_loop(self) -> None:
        while not self._closing.is_set():
            try:
                client, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            client.settimeout(None)
            if not self._slots.acquire(blocking=False):
                self._refuse(client, "", "", 503, "too many connections")
                client.close()
                continue
            threading.Thread(target=self._serve, args=(client,), daemon=True).start()

    def _serve(self, client: socket.socket) -> None:
        self._track(client, True)
        upstream = None
        try:
            upstream = self._open_tunnel(client)
            if upstream is not None:
                self._track(upstream, True)
                _relay(client, upstream, self.idle_seconds)
        finally:
            for conn in (client, upstream):
                if conn is not None:
                    self._track(conn, False)
                    conn.close()
            self._slots.release()

    def _open_tunnel(self, client: socket.socket) -> socket.socket | None:
        """Read the request head, apply the policy, connect; None when refused (already answered)."""
        client.settimeout(self.header_seconds)
        try:
            head, early = _read_head(client)
        except (OSError, ValueError) as exc:
            return self._refuse(client, "", "", 400, f"bad request head: {exc}")
        method, target = _request_line(head)
        if method != "CONNECT":
            return self._refuse(client, method, target, 403, "only CONNECT is allowed")
        host, port = _split_target(target)
        if host not in self.allowed_hosts:
            return self._refuse(client, method, target, 403, "host not allowed")
        if port not in self.allowed_ports:
            return self._refuse(client, method, target, 403, "port not allowed")
        try:
            addresses = self._resolver(host, port)
        except OSError as exc:
            return self._refuse(client, method, target, 502, f"cannot resolve: {exc}")
        usable = [a for a in addresses if not self._is_denied(a)]
        if not usable:
            return self._refuse(client, method, target, 403, f"resolves only to denied addresses {addresses}")
        upstream = self._connect(usable, port)
        if upstream is None:
            return self._refuse(client, method, target, 502, f"cannot connect to {usable}")
        self._record(Decision(method, target, 200, "tunnel", upstream.getpeername()[0]))
        client.settimeout(self.idle_seconds)
        client.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
        if early:
            upstream.sendall(early)  # bytes the client sent right behind the head (e.g. a TLS hello)
        return upstream

    def _connect(self, addresses, port: int) -> socket.socket | None:
        for address in addresses:
            try:
                upstream = socket.create_connection((address, port), timeout=self.connect_seconds)
            except OSError:
                continue
            upstream.settimeout(self.idle_seconds)
            return upstream
        return None

    def _refuse(self, client, method: str, target: str, status: int, reason: str) -> None:
        self._record(Decision(method, target, status, reason))
        body = f"{reason}\n".encode()
        phrase = {400: "Bad Request", 403: "Forbidden", 502: "Bad Gateway", 503: "Service Unavailable"}[status]
        head = f"HTTP/1.1 {status} {phrase}\r\nContent-Type: text/plain\r\nContent-Length: {len(body)}\r\n"
        try:
            client.sendall(head.encode() + b"Connection: close\r\n\r\n" + body)
        except OSError:
            pass
        return None

    def _record(self, decision: Decision) -> None:
        with self._lock:
            self._log.append(decision)

    def _track(self, conn: socket.socket, add: bool) -> None:
        with self._lock:
            (self._open.add if add else self._open.discard)(conn)


MAX_HEAD_BYTES = 8192


def _read_head(client: socket.socket) -> tuple[bytes, bytes]:
    """The request head up to the blank line, and whatever arrived after it."""
    data = b""
    while b"\r\n\r\n" not in data:
        if len(data) > MAX_HEAD_BYTES:
            raise ValueError("request head too long")
        chunk = client.recv(4096)
        if not chunk:
            raise ValueError("connection closed before the request head ended")
        data += chunk
    head, _, early = data.partition(b"\r\n\r\n")
    return head, early


def _request_line(head: bytes) -> tuple[str, str]:
    parts = head.split(b"\r\n", 1)[0].decode("latin-1").split()
    if len(parts) != 3 or not parts[2].startswith("HTTP/"):
        return "", ""
    return parts[0].upper(), parts[1]


def _split_target(target: str) -> tuple[str, int]:
    """``host:port`` (or ``[v6]:port``) → lower-cased host without trailing dot, port; port 0 if invalid."""
    host, colon, port = target.rpartition(":")
    if not colon or target.endswith("]"):  # no port at all (also a bare "[v6]")
        host, port = target, ""
    host = host.strip("[]").lower().rstrip(".")
    return host, int(port) if port.isdigit() and len(port) <= 5 else 0


def _relay(a: socket.socket, b: socket.socket, idle_seconds: float) -> None:
    """Copy bytes both ways until both sides closed or nothing moved for ``idle_seconds``."""
    peers = {a.fileno(): (a, b), b.fileno(): (b, a)}
    poller = select.poll()  # not select(): descriptors above 1024 are fine
    for fd in peers:
        poller.register(fd, select.POLLIN)
    still_open = len(peers)
    while still_open:
        events = poller.poll(idle_seconds * 1000)
        if not events:
            return  # idle
        for fd, _ in events:
            source, sink = peers[fd]
            try:
                chunk = source.recv(1 << 16)
                if chunk:
                    sink.sendall(chunk)
                    continue
                sink.shutdown(socket.SHUT_WR)
            except OSError:
                return
            poller.unregister(fd)
            still_open -= 1


def _shutdown(conn: socket.socket) -> None:
    try:
        conn.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass


# --- what a sandbox needs to use the proxy ------------------------------------------------------------------


@dataclass(frozen=True)
class ProxyPlan:
    """Binds, environment and argv prefix that route a sandboxed command's HTTPS through the proxy."""

    mounts: tuple[Mount, ...]
    env: tuple[tuple[str, str], ...]
    argv_prefix: tuple[str, ...]


_readable_forwarder: Path | None = None
_forwarder_lock = threading.Lock()


def _forwarder_for_sandbox() -> Path:
    """The forwarder script as a world-readable file (copied once per process when the package's own copy
    is not one, e.g. inside a zipped pex or a checkout with a strict umask)."""
    global _readable_forwarder
    from bench.sandbox import _forwarder  # an import, so packaging sees the dependency

    source = Path(_forwarder.__file__)
    if source.is_file() and source.stat().st_mode & stat.S_IROTH:
        return source
    with _forwarder_lock:
        if _readable_forwarder is None or not _readable_forwarder.exists():
            import importlib.resources

            folder = Path(tempfile.mkdtemp(prefix="lcb-forwarder-"))
            os.chmod(folder, 0o755)
            copy = folder / "forwarder.py"
            copy.write_bytes(importlib.resources.files("bench.sandbox").joinpath("_forwarder.py").read_bytes())
            os.chmod(copy, 0o644)
            _readable_forwarder = copy
        return _readable_forwarder


def proxy_plan(proxy: IndexProxy | Path, ca_bundle: Path = HOST_CA_BUNDLE) -> ProxyPlan:
    """How to run a command behind ``proxy`` (a running :class:`IndexProxy` or its socket path)."""
    socket_path = proxy.socket_path if isinstance(proxy, IndexProxy) else Path(proxy)
    if not socket_path.exists():
        raise SandboxError(f"index proxy socket {socket_path} does not exist (is the proxy running?)")
    if not ca_bundle.is_file():
        raise SandboxError(f"CA bundle {ca_bundle} not found")
    url = f"http://127.0.0.1:{FORWARDER_PORT}"
    mounts = (
        Mount(socket_path.parent, SANDBOX_SOCKET_DIR),
        Mount(_forwarder_for_sandbox(), SANDBOX_FORWARDER),
        Mount(ca_bundle, SANDBOX_CA_BUNDLE),
    )
    env = (
        ("HTTPS_PROXY", url),
        ("HTTP_PROXY", url),
        ("https_proxy", url),
        ("http_proxy", url),
        ("SSL_CERT_FILE", SANDBOX_CA_BUNDLE),
        ("PIP_CERT", SANDBOX_CA_BUNDLE),
        ("REQUESTS_CA_BUNDLE", SANDBOX_CA_BUNDLE),
    )
    inner_socket = f"{SANDBOX_SOCKET_DIR}/{socket_path.name}"
    argv_prefix = (SANDBOX_PYTHON, SANDBOX_FORWARDER, inner_socket, str(FORWARDER_PORT), "--")
    return ProxyPlan(mounts=mounts, env=env, argv_prefix=argv_prefix)
