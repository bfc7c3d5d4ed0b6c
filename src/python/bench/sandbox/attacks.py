"""Attack cases of the sandbox suite: what hostile code under test would try, and what must stop it.

This module holds the isolation attacks (network, secrets, files, processes, privileges); resource
exhaustion lives in ``attacks_resources``.

Every case passes only when the attack fails *and* the host shows no trace of it (no connection received,
no file changed, no process left behind). See ``conformance`` for the case protocol.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
from pathlib import Path

from bench.sandbox.attacks_resources import RESOURCE_ATTACKS
from bench.sandbox.conformance import Case, Ctx, brief, case, token

CONNECT = ("import socket, sys\ntry:\n    socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=3)\n"
           "    print('CONNECTED')\nexcept OSError as e:\n    print('refused', e)\n")


def _internet_address() -> tuple[str, str]:
    """An internet address the host can reach (tried from the host first), for egress attempts."""
    for host in ("deb.debian.org", "pypi.org"):
        try:
            address = socket.getaddrinfo(host, 80, socket.AF_INET, socket.SOCK_STREAM)[0][4][0]
            socket.create_connection((address, 80), timeout=3).close()
            return address, f"{host} ({address}) reachable from the host"
        except OSError:
            continue
    return "151.101.2.132", "no internet from the host either; tried 151.101.2.132"


class _Listener:
    """A TCP server on the host that counts connections (the sandbox must make none)."""

    def __init__(self, address: str) -> None:
        self.sock = socket.socket()
        self.sock.bind((address, 0))
        self.sock.listen(16)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.accepted = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
                self.accepted += 1
                conn.close()
            except OSError:
                continue

    def close(self) -> None:
        self._stop.set()
        self._thread.join()
        self.sock.close()


def _primary_address() -> str:
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(("192.0.2.1", 9))  # no packet is sent for a UDP connect
        return probe.getsockname()[0]
    except OSError:
        return "127.0.0.1"
    finally:
        probe.close()


@case("attack")
def egress_internet_tcp(ctx: Ctx):
    address, note = _internet_address()
    result = ctx.py(CONNECT, address, "80")
    return b"CONNECTED" not in result.stdout and b"refused" in result.stdout, f"{note}; {brief(result)}"


@case("attack")
def egress_host_services(ctx: Ctx):
    listener = _Listener("0.0.0.0")
    try:
        results = [ctx.py(CONNECT, addr, str(listener.port)) for addr in ("127.0.0.1", _primary_address())]
    finally:
        listener.close()
    connected = [b"CONNECTED" in r.stdout for r in results]
    ok = not any(connected) and listener.accepted == 0 and all(b"refused" in r.stdout for r in results)
    return ok, f"host listener accepted {listener.accepted}; inside connected={connected}"


@case("attack")
def dns_lookup(ctx: Ctx):
    code = ("import socket\ntry:\n    print('RESOLVED', socket.getaddrinfo('deb.debian.org', 443))\n"
            "except OSError as e:\n    print('failed', e)")
    result = ctx.py(code)
    return b"RESOLVED" not in result.stdout and b"failed" in result.stdout, brief(result)


@case("attack")
def host_env_secret(ctx: Ctx):
    secret = token()
    os.environ["LCB_FAKE_SECRET"] = secret
    try:
        code = ("import glob, os\nprint(dict(os.environ))\nfor p in glob.glob('/proc/*/environ'):\n    try:\n"
                "        print(p, open(p, 'rb').read())\n    except OSError as e:\n        print(p, e)")
        result = ctx.py(code)
    finally:
        del os.environ["LCB_FAKE_SECRET"]
    seen = secret.encode() in result.stdout + result.stderr
    return result.ok and not seen, f"secret visible={seen}; {brief(result)}"


@case("attack")
def read_host_files(ctx: Ctx):
    secret = token()
    secret_file = ctx.scratch / "host-secret.txt"
    secret_file.write_text(secret)
    os.chmod(secret_file, 0o644)  # readable by anyone on the host: only the mount namespace stands in the way
    code = ("import os, sys\nfor p in sys.argv[1:]:\n    try:\n        print(p, os.listdir(p) if os.path.isdir(p) "
            "else open(p).read())\n    except OSError as e:\n        print(p, 'denied', e.errno)")
    result = ctx.py(code, str(secret_file), "/root", "/root/.bashrc", "/etc/shadow", "/home", str(Path.home()))
    shadow = Path("/etc/shadow").read_text().splitlines()[0] if Path("/etc/shadow").exists() else "\0"
    leaked = secret.encode() in result.stdout or shadow.encode() in result.stdout
    denied = result.stdout.count(b" denied ")
    must_deny = (f"{secret_file} denied".encode(), b"/etc/shadow denied", b"/root/.bashrc denied")
    ok = result.ok and not leaked and denied >= 4 and all(line in result.stdout for line in must_deny)
    return ok, f"{denied} of 6 reads denied; {brief(result)}"


@case("attack")
def write_outside_workdir(ctx: Ctx):
    name = token()
    targets = [f"/usr/{name}", f"/etc/{name}", f"/{name}", f"/usr/lib/python3/{name}", "/proc/sys/vm/drop_caches"]
    code = ("import sys\nfor p in sys.argv[1:]:\n    try:\n        open(p, 'w').write('1')\n        print('WROTE', p)\n"
            "    except OSError as e:\n        print('denied', p, e.errno)")
    result = ctx.py(code, *targets)
    on_host = [p for p in (ctx.image_root / "usr" / name, ctx.image_root / "etc" / name, Path("/") / name) if p.exists()]
    return b"WROTE" not in result.stdout and not on_host and result.ok, f"on host: {on_host}; {brief(result)}"


@case("attack")
def symlink_to_host_file(ctx: Ctx):
    secret = token()
    secret_file = ctx.scratch / "secret.txt"
    secret_file.write_text(secret)
    os.chmod(secret_file, 0o644)
    (ctx.workdir / "leak-secret").symlink_to(secret_file)
    (ctx.workdir / "leak-shadow").symlink_to("/etc/shadow")
    code = ("import os\nfor p in ('leak-secret', 'leak-shadow'):\n    try:\n        print(p, open(p).read())\n"
            "    except OSError as e:\n        print(p, 'denied', e.errno)\ntry:\n    os.link('/etc/shadow', 'hard')\n"
            "    print('LINKED')\nexcept OSError as e:\n    print('link denied', e.errno)")
    result = ctx.py(code)
    shadow = Path("/etc/shadow").read_text().splitlines()[0] if Path("/etc/shadow").exists() else "\0"
    leaked = secret.encode() in result.stdout or shadow.encode() in result.stdout or b"LINKED" in result.stdout
    return result.ok and not leaked and result.stdout.count(b"denied") == 3, brief(result)


@case("attack")
def symlink_ownership_trap(ctx: Ctx):
    victim = ctx.scratch / "victim.txt"
    victim.write_text("host file")
    os.chown(victim, 4242, 4242)
    os.chmod(victim, 0o600)
    code = "import os, sys\nos.symlink(sys.argv[1], '/work/trap')\nos.mkdir('/work/d')\nos.symlink(sys.argv[1], '/work/d/t')"
    result = ctx.py(code, str(victim))
    stat = victim.stat()
    ok = result.ok and (stat.st_uid, stat.st_gid, stat.st_mode & 0o777) == (4242, 4242, 0o600) and \
        victim.read_text() == "host file"
    return ok, f"victim owner {stat.st_uid}:{stat.st_gid} mode {oct(stat.st_mode & 0o777)}; {brief(result)}"


@case("attack")
def nested_user_namespace(ctx: Ctx):
    code = ("import os\ntry:\n    os.unshare(os.CLONE_NEWUSER)\n    print('UNSHARED')\nexcept OSError as e:\n"
            "    print('denied', e.errno)")
    result = ctx.py(code)
    tool = ctx.run(("sh", "-c", "unshare -U true && echo UNSHARED || echo denied"))
    ok = b"denied" in result.stdout and b"UNSHARED" not in result.stdout + tool.stdout
    return ok, f"{brief(result)}; unshare tool: {tool.stdout!r}"


@case("attack")
def privileges_dropped(ctx: Ctx):
    code = ("import os\nstatus = dict(l.split(':\\t', 1) for l in open('/proc/self/status').read().splitlines() "
            "if ':\\t' in l)\nprint(os.getuid(), os.geteuid(), status['CapEff'].strip(), status['CapBnd'].strip(), "
            "status['NoNewPrivs'].strip())")
    result = ctx.py(code)
    fields = result.stdout.split()
    ok = len(fields) == 5 and fields[0] != b"0" and fields[1] != b"0" and fields[2] == b"0" * 16 and \
        fields[3] == b"0" * 16 and fields[4] == b"1"
    return ok, f"uid euid CapEff CapBnd NoNewPrivs = {fields}"


@case("attack")
def host_processes_hidden(ctx: Ctx):
    marker = token()
    host = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)", marker])
    try:
        # The marker goes in as two halves, so no sandboxed process carries it whole in its own argv.
        code = ("import os, signal, sys\nmarker = (sys.argv[1] + sys.argv[2]).encode()\nhits = 0\n"
                "for pid in filter(str.isdigit, os.listdir('/proc')):\n    try:\n"
                "        hits += marker in open(f'/proc/{pid}/cmdline', 'rb').read()\n    except OSError:\n"
                "        pass\nprint('seen', hits)\ntry:\n    os.kill(int(sys.argv[3]), signal.SIGKILL)\n"
                "    print('KILLED')\nexcept OSError as e:\n    print('kill denied', e.errno)")
        result = ctx.py(code, marker[:8], marker[8:], str(host.pid))
        alive = host.poll() is None
    finally:
        host.kill()
        host.wait()
    ok = result.stdout.startswith(b"seen 0") and b"KILLED" not in result.stdout and alive
    return ok, f"host process alive={alive}; {brief(result)}"


@case("attack")
def mount_and_devices(ctx: Ctx):
    code = ("import ctypes, os\nlibc = ctypes.CDLL(None, use_errno=True)\nos.makedirs('/tmp/m', exist_ok=True)\n"
            "r = libc.mount(b'none', b'/tmp/m', b'tmpfs', 0, None)\nprint('mount', r, ctypes.get_errno())\n"
            "r = libc.mount(None, b'/', None, 32 | 4096, None)\nprint('remount', r, ctypes.get_errno())\n"
            "print('devices', sorted(d for d in os.listdir('/dev') if d.startswith(('sd', 'vd', 'nvme', 'xvd', 'mem', 'kmem'))))")
    result = ctx.py(code)
    out = result.stdout.decode()
    ok = "mount -1" in out and "remount -1" in out and "devices []" in out
    return ok, brief(result)


@case("attack")
def cgroup_escape(ctx: Ctx):
    code = ("import glob, os\nfor p in ['/sys/fs/cgroup/cgroup.procs'] + glob.glob('/sys/fs/cgroup/*/cgroup.procs'):\n"
            "    try:\n        open(p, 'w').write(str(os.getpid()))\n        print('MOVED', p)\n"
            "    except OSError as e:\n        print('denied', p, e.errno)\n"
            "print(open('/proc/self/cgroup').read())")
    result = ctx.py(code)
    return result.ok and b"MOVED" not in result.stdout, brief(result)


ISOLATION_ATTACKS: tuple[Case, ...] = (
    egress_internet_tcp, egress_host_services, dns_lookup, host_env_secret, read_host_files, write_outside_workdir,
    symlink_to_host_file, symlink_ownership_trap, nested_user_namespace, privileges_dropped, host_processes_hidden,
    mount_and_devices, cgroup_escape,
)
ATTACK_CASES: tuple[Case, ...] = ISOLATION_ATTACKS + RESOURCE_ATTACKS
