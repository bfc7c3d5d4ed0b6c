"""Ollama's native /api/chat provider against our fault server (no Ollama server exists on PyPI to start)."""

from __future__ import annotations

from typing import Iterator

import pytest

from bench.errors import EndpointError, EndpointTimeout
from bench.testing.fault_server import REPLY_TEXT, SERVED_MODEL, FaultServer, closed_port_url
from bench.model._retry import RetryPolicy
from bench.model.ollama import OllamaModel
from bench.model.protocol import Message, ModelParams, RequestContext

MESSAGES = (Message("user", "Say hi."),)
CONTEXT = RequestContext(task_id="t")
FAST_RETRY = RetryPolicy(
    max_attempts=3, backoff_seconds=0.05, backoff_cap_seconds=0.2, retry_after_cap_seconds=0.5
)


@pytest.fixture(scope="module")
def server() -> Iterator[FaultServer]:
    with FaultServer(rate_limit_count=2, retry_after="0.1", trickle_interval=0.1) as fault_server:
        yield fault_server


def complete(url: str, **params):
    model = OllamaModel("qwen3:0.6b", base_url=url, retry=FAST_RETRY)
    return model.complete(MESSAGES, ModelParams(**{"timeout_seconds": 5.0, **params}), CONTEXT)


def test_ok_parses_native_reply(server: FaultServer):
    completion = complete(server.ollama_url("ok"))
    assert (
        completion.text,
        completion.served_model,
        completion.prompt_tokens,
        completion.completion_tokens,
    ) == (REPLY_TEXT, SERVED_MODEL, 11, 7)
    assert completion.reasoning_tokens == 0  # Ollama does not count thinking tokens apart


def test_request_carries_think_and_runner_options(server: FaultServer):
    before = len(server.requests)
    complete(
        server.ollama_url("ok"),
        temperature=0.0,
        seed=5,
        max_tokens=100,
        reasoning_budget=50,
        context_size=8192,
        thinking=False,
    )
    request = server.requests[before]
    assert request.path == "/api/chat"
    assert request.body == {
        "model": "qwen3:0.6b",
        "messages": [{"role": "user", "content": "Say hi."}],
        "stream": False,
        "think": False,
        "options": {"temperature": 0.0, "seed": 5, "num_predict": 150, "num_ctx": 8192},
    }


def test_think_left_to_the_model_when_unset(server: FaultServer):
    before = len(server.requests)
    complete(server.ollama_url("ok"))
    assert "think" not in server.requests[before].body


def test_rate_limit_then_ok_recovers(server: FaultServer):
    assert complete(server.ollama_url("429-then-ok")).text == REPLY_TEXT
    assert server.count("429-then-ok") == 3


@pytest.mark.parametrize("mode", ["500-always", "429-always"])
def test_persistent_failures_are_endpoint_errors(server: FaultServer, mode: str):
    with pytest.raises(EndpointError) as info:
        complete(server.ollama_url(mode))
    assert type(info.value) is EndpointError
    assert server.count(mode) == FAST_RETRY.max_attempts


def test_unknown_model_404_is_endpoint_error_without_retry(server: FaultServer):
    with pytest.raises(EndpointError, match="404") as info:
        complete(server.ollama_url("no-such-mode"))
    assert type(info.value) is EndpointError
    assert server.count("no-such-mode") == 1


def test_malformed_json_is_endpoint_error(server: FaultServer):
    with pytest.raises(EndpointError, match="malformed") as info:
        complete(server.ollama_url("malformed"))
    assert type(info.value) is EndpointError


@pytest.mark.parametrize("mode", ["timeout", "slow-stream", "empty-choices", "length-empty"])
def test_no_usable_answer_in_budget_is_timeout(server: FaultServer, mode: str):
    with pytest.raises(EndpointTimeout):
        complete(server.ollama_url(mode), timeout_seconds=1.0)


def test_connection_refused_is_endpoint_error():
    with pytest.raises(EndpointError, match="cannot reach") as info:
        complete(closed_port_url().removesuffix("/v1"))
    assert type(info.value) is EndpointError
