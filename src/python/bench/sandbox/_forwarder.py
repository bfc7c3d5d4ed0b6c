"""In-sandbox half of the index proxy (stdlib only; runs on the image's own python3).

Usage: ``python3 forwarder.py SOCKET PORT -- COMMAND...``. Listens on 127.0.0.1:PORT, relays every TCP
connection to the host proxy's unix socket SOCKET, runs COMMAND as a child and exits with its status (128+n
when the child died of signal n). The sandbox has no network, so the loopback listener is only reachable
from inside it.
"""

import signal
import socket
import subprocess
import sys
import threading


def _pump(source, sink):
    try:
        while True:
            chunk = source.recv(1 << 16)
            if not chunk:
                break
            sink.sendall(chunk)
        sink.shutdown(socket.SHUT_WR)
    except OSError:
        pass


def _relay(conn, socket_path):
    upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        upstream.connect(socket_path)
    except OSError:
        conn.close()
        upstream.close()
        return
    back = threading.Thread(target=_pump, args=(upstream, conn), daemon=True)
    back.start()
    _pump(conn, upstream)
    back.join()
    conn.close()
    upstream.close()


def _serve(listener, socket_path):
    while True:
        try:
            conn, _ = listener.accept()
        except OSError:
            return
        threading.Thread(target=_relay, args=(conn, socket_path), daemon=True).start()


def main(argv):
    if len(argv) < 4 or argv[2] != "--":
        print("usage: forwarder.py SOCKET PORT -- COMMAND...", file=sys.stderr)
        return 2
    socket_path, port, command = argv[0], int(argv[1]), argv[3:]
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", port))
    listener.listen(64)
    threading.Thread(target=_serve, args=(listener, socket_path), daemon=True).start()
    try:
        child = subprocess.Popen(command)
    except OSError as exc:
        print(f"forwarder: cannot run {command[0]}: {exc}", file=sys.stderr)
        return 127
    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, lambda n, _frame: child.send_signal(n))
    code = child.wait()
    return code if code >= 0 else 128 - code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
