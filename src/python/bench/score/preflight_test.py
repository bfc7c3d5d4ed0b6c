"""Preflight against real loopback HTTP servers: a run stops before its first unit when the endpoint cannot
serve it — an OpenAI-compatible server whose chat route answers 501 (even though nothing else is wrong but a
404 model list), or a model the server does not know; an Ollama server without the model, or not an Ollama
server at all."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Iterator

import pytest

from bench.errors import EndpointError, UsageError
from bench.model.protocol import ModelParams
from bench.score.preflight import check_endpoint
from bench.testing.fault_server import closed_port_url, openai_body
from bench.testing.support import checkout_root, run_bench


class Endpoint:
    """A loopback server answering each (method, path) with a fixed status and JSON body; 404 otherwise.
    Every request is recorded as (method, path, JSON body or None)."""

    def __init__(self, routes: dict[tuple[str, str], tuple[int, object]]) -> None:
        self.routes = routes
        self.requests: list[tuple[str, str, object]] = []
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:
                pass

            def do_GET(self) -> None:
                self._answer("GET")

            def do_POST(self) -> None:
                self._answer("POST")

            def _answer(self, method: str) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                endpoint.requests.append((method, self.path, json.loads(raw) if raw else None))
                status, body = endpoint.routes.get((method, self.path), (404, {"error": "not found"}))
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> "Endpoint":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()


NOT_IMPLEMENTED = (501, {"error": {"message": "chat completions are not implemented here"}})
MODEL_LIST = (200, {"object": "list", "data": [{"id": "loop-model", "object": "model"}]})


@pytest.fixture
def openai_server(request, monkeypatch) -> Iterator[Endpoint]:
    with Endpoint(request.param) as endpoint:
        monkeypatch.setenv("LOOP_BASE_URL", endpoint.url + "/v1")
        monkeypatch.delenv("LOOP_API_KEY", raising=False)
        yield endpoint


@pytest.mark.parametrize("openai_server", [{("POST", "/v1/chat/completions"): NOT_IMPLEMENTED}], indirect=True)
def test_a_server_without_models_whose_chat_route_answers_501_is_refused_before_the_run(openai_server):
    with pytest.raises(UsageError) as refused:
        check_endpoint("openai-api/loop/loop-model", ModelParams())
    message = str(refused.value)
    assert "HTTP 501" in message and f"{openai_server.url}/v1/chat/completions" in message
    assert "/models answered 404" in message
    assert [(method, path) for method, path, _ in openai_server.requests] == [
        ("GET", "/v1/models"), ("POST", "/v1/chat/completions")]


@pytest.mark.parametrize("openai_server", [{("GET", "/v1/models"): MODEL_LIST,
                                            ("POST", "/v1/chat/completions"): (404, {"error": {
                                                "message": "The model `other` does not exist"}})}], indirect=True)
def test_a_model_the_server_does_not_know_is_refused_before_the_run(openai_server):
    with pytest.raises(UsageError, match=r"HTTP 404 \(The model `other` does not exist\)"):
        check_endpoint("openai-api/loop/other", ModelParams())


@pytest.mark.parametrize("openai_server", [{("POST", "/v1/chat/completions"): (200, openai_body("OK"))}],
                         indirect=True)
def test_a_server_without_a_model_list_that_answers_the_chat_route_passes(openai_server):
    check_endpoint("openai-api/loop/loop-model", ModelParams())
    method, path, body = openai_server.requests[-1]
    assert (method, path, body["model"]) == ("POST", "/v1/chat/completions", "loop-model")


@pytest.mark.parametrize("openai_server", [{("POST", "/v1/chat/completions"): NOT_IMPLEMENTED}], indirect=True)
def test_bench_score_on_a_501_endpoint_exits_2_before_any_unit(openai_server, tmp_path):
    out = tmp_path / "run"
    done = run_bench("score", "--model", "openai-api/loop/loop-model", "--tasks", "synthetic.caesar_shift",
                     "--out", str(out), cwd=checkout_root(), env={"LOOP_BASE_URL": openai_server.url + "/v1"})
    assert done.returncode == 2, done.stderr[-2000:]
    assert "HTTP 501" in done.stderr
    assert not (out / "records.jsonl").exists()


OLLAMA_TAGS = (200, {"models": [{"name": "llama3:8b", "model": "llama3:8b", "size": 1},
                                {"name": "qwen3:latest", "model": "qwen3:latest", "size": 1}]})


@pytest.fixture
def ollama_server(monkeypatch) -> Iterator[Endpoint]:
    with Endpoint({("GET", "/api/tags"): OLLAMA_TAGS}) as endpoint:
        monkeypatch.setenv("OLLAMA_HOST", endpoint.url)
        yield endpoint


@pytest.mark.parametrize("model", ["ollama/llama3:8b", "ollama/qwen3"])
def test_an_ollama_model_the_server_lists_passes(ollama_server, model):
    check_endpoint(model, ModelParams())
    assert ollama_server.requests == [("GET", "/api/tags", None)]


def test_an_ollama_model_the_server_lacks_is_refused_with_the_pull_command(ollama_server):
    with pytest.raises(UsageError) as refused:
        check_endpoint("ollama/mistral:7b", ModelParams())
    assert "ollama pull mistral:7b" in str(refused.value) and "llama3:8b" in str(refused.value)


def test_a_server_without_api_tags_is_not_taken_for_ollama(monkeypatch):
    with Endpoint({}) as endpoint:
        monkeypatch.setenv("OLLAMA_HOST", endpoint.url)
        with pytest.raises(UsageError, match="is not an Ollama server"):
            check_endpoint("ollama/llama3:8b", ModelParams())


def test_an_ollama_nobody_listens_at_is_an_endpoint_error(monkeypatch):
    monkeypatch.setenv("OLLAMA_HOST", closed_port_url().removesuffix("/v1"))
    with pytest.raises(EndpointError, match="cannot reach ollama"):
        check_endpoint("ollama/llama3:8b", ModelParams())
