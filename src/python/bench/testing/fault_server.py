"""A loopback HTTP server that misbehaves on request, for testing how model providers map endpoint faults.

The first path segment picks the behaviour, so one server serves every mode::

    http://127.0.0.1:PORT/<mode>/v1/chat/completions   OpenAI wire format
    http://127.0.0.1:PORT/<mode>/api/chat              Ollama's native format

Modes: ``ok``; ``timeout`` (holds the request without answering); ``429-then-ok`` (``rate_limit_count``
429s with ``Retry-After``, then ok); ``429-always``; ``500-always``; ``500-then-ok``; ``malformed`` (a 200
whose body is not JSON); ``empty-choices`` (a 200 without choices); ``empty-then-ok``; ``length-empty``
(no text, finish_reason length); ``slow-stream`` (a 200 whose body trickles in forever); ``auth-401``.
Use :func:`closed_port_url` for a refused connection. Every request is recorded (mode, path, JSON body).

Bound to 127.0.0.1 on an ephemeral port; every waiting handler wakes when the server stops.
"""

from __future__ import annotations

import json
import socket
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

REPLY_TEXT = "fault server reply"
SERVED_MODEL = "fault-model"
USAGE = {"prompt_tokens": 11, "completion_tokens": 7, "reasoning_tokens": 3}


@dataclass(frozen=True)
class RecordedRequest:
    mode: str
    path: str
    body: Any
    authorization: str


def openai_body(text: str = REPLY_TEXT, *, finish_reason: str = "stop", choices: bool = True) -> dict:
    return {
        "id": "chatcmpl-fault",
        "object": "chat.completion",
        "created": 0,
        "model": SERVED_MODEL,
        "choices": (
            [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": finish_reason}]
            if choices
            else []
        ),
        "usage": {
            "prompt_tokens": USAGE["prompt_tokens"],
            "completion_tokens": USAGE["completion_tokens"],
            "total_tokens": USAGE["prompt_tokens"] + USAGE["completion_tokens"],
            "completion_tokens_details": {"reasoning_tokens": USAGE["reasoning_tokens"]},
        },
    }


def ollama_body(text: str = REPLY_TEXT, *, done_reason: str = "stop", message: bool = True) -> dict:
    body: dict[str, Any] = {
        "model": SERVED_MODEL,
        "created_at": "1970-01-01T00:00:00Z",
        "done": True,
        "done_reason": done_reason,
        "prompt_eval_count": USAGE["prompt_tokens"],
        "eval_count": USAGE["completion_tokens"],
    }
    if message:
        body["message"] = {"role": "assistant", "content": text, "thinking": "hmm"}
    return body


class FaultServer:
    def __init__(
        self,
        *,
        rate_limit_count: int = 2,
        retry_after: str = "0",
        hold_seconds: float = 60.0,
        trickle_interval: float = 0.2,
    ) -> None:
        self.rate_limit_count = rate_limit_count
        self.retry_after = retry_after
        self.hold_seconds = hold_seconds
        self.trickle_interval = trickle_interval
        self.requests: list[RecordedRequest] = []
        self.stopping = threading.Event()
        self._counts: dict[str, int] = {}
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name="fault-server", daemon=True)

    @property
    def port(self) -> int:
        return self._server.server_address[1]

    def openai_url(self, mode: str) -> str:
        return f"http://127.0.0.1:{self.port}/{mode}/v1"

    def ollama_url(self, mode: str) -> str:
        return f"http://127.0.0.1:{self.port}/{mode}"

    def count(self, mode: str) -> int:
        with self._lock:
            return self._counts.get(mode, 0)

    def _record(self, request: RecordedRequest) -> int:
        with self._lock:
            self.requests.append(request)
            self._counts[request.mode] = self._counts.get(request.mode, 0) + 1
            return self._counts[request.mode]

    def start(self) -> "FaultServer":
        self._thread.start()
        return self

    def stop(self) -> None:
        self.stopping.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=10)

    def __enter__(self) -> "FaultServer":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def closed_port_url() -> str:
    """A loopback URL nothing listens on (the port was bound, then released)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def _handler_for(server: FaultServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
            pass

        def do_GET(self) -> None:
            self._json(200, {"object": "list", "data": [{"id": SERVED_MODEL, "object": "model"}]})

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length)
            try:
                body = json.loads(raw)
            except ValueError:
                body = None
            mode, _, rest = self.path.lstrip("/").partition("/")
            nth = server._record(
                RecordedRequest(mode, "/" + rest, body, self.headers.get("Authorization", ""))
            )
            ollama = rest.endswith("api/chat")
            self._respond(mode, nth, ollama)

        def _respond(self, mode: str, nth: int, ollama: bool) -> None:
            ok = ollama_body() if ollama else openai_body()
            if mode == "ok":
                self._json(200, ok)
            elif mode == "timeout":
                server.stopping.wait(server.hold_seconds)
                self._json(200, ok)
            elif mode in ("429-then-ok", "429-always"):
                if mode == "429-always" or nth <= server.rate_limit_count:
                    self._json(429, {"error": {"message": "slow down"}}, {"Retry-After": server.retry_after})
                else:
                    self._json(200, ok)
            elif mode == "500-always" or (mode == "500-then-ok" and nth == 1):
                self._json(500, {"error": {"message": "boom"}})
            elif mode == "500-then-ok":
                self._json(200, ok)
            elif mode == "malformed":
                self._raw(200, b'{"choices": [{"message": ', "application/json")
            elif mode == "empty-choices" or (mode == "empty-then-ok" and nth == 1):
                self._json(200, ollama_body(message=False) if ollama else openai_body(choices=False))
            elif mode == "empty-then-ok":
                self._json(200, ok)
            elif mode == "length-empty":
                empty = (
                    ollama_body("", done_reason="length")
                    if ollama
                    else openai_body("", finish_reason="length")
                )
                self._json(200, empty)
            elif mode == "slow-stream":
                self._trickle(json.dumps(ok).encode())
            elif mode == "auth-401":
                self._json(401, {"error": {"message": "invalid api key", "code": "invalid_api_key"}})
            else:
                self._json(404, {"error": {"message": f"unknown fault mode {mode!r}"}})

        def _json(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
            self._raw(status, json.dumps(body).encode(), "application/json", headers)

        def _raw(self, status: int, data: bytes, ctype: str, headers: dict[str, str] | None = None) -> None:
            try:
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(data)))
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up first, which is what some tests provoke

        def _trickle(self, data: bytes) -> None:
            """Send the body a few bytes at a time (chunked), far slower than any test budget."""
            try:
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                for start in range(0, len(data), 4):
                    if server.stopping.wait(server.trickle_interval):
                        return
                    piece = data[start : start + 4]
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                    self.wfile.flush()
                self.wfile.write(b"0\r\n\r\n")
            except (BrokenPipeError, ConnectionResetError):
                pass
            finally:
                self.close_connection = True

    return Handler
