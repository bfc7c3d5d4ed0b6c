from __future__ import annotations

import json

import pytest

from bench.errors import ContextOverflow, EndpointError, EndpointTimeout
from bench.model import _openai_wire as wire
from bench.testing.fault_server import openai_body
from bench.model.protocol import Message, ModelParams

MESSAGES = (Message("system", "s"), Message("user", "u"))


def test_compatible_request_sends_only_set_knobs():
    request = wire.build_request(
        "m", MESSAGES, ModelParams(temperature=0.0, seed=3, max_tokens=100), dialect="compatible"
    )
    assert request == {
        "model": "m",
        "messages": [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}],
        "temperature": 0.0,
        "seed": 3,
        "max_tokens": 100,
    }


def test_compatible_thinking_goes_through_chat_template_and_budget_adds_to_allowance():
    params = ModelParams(seed=None, max_tokens=100, thinking=False, reasoning_budget=1000)
    request = wire.build_request("m", MESSAGES, params, dialect="compatible")
    assert request["extra_body"] == {"chat_template_kwargs": {"enable_thinking": False}}
    assert (request["max_tokens"], request["reasoning_effort"]) == (1100, "low")
    assert "seed" not in request


def test_openai_dialect_uses_max_completion_tokens_and_effort():
    request = wire.build_request(
        "gpt", MESSAGES, ModelParams(max_tokens=100, reasoning_budget=5000), dialect="openai"
    )
    assert (request["max_completion_tokens"], request["reasoning_effort"]) == (5100, "medium")
    assert "max_tokens" not in request and "extra_body" not in request
    off = wire.build_request("gpt", MESSAGES, ModelParams(thinking=False), dialect="openai")
    assert off["reasoning_effort"] == "minimal"


@pytest.mark.parametrize(
    "budget,effort", [(0, "minimal"), (1, "low"), (2048, "low"), (8192, "medium"), (8193, "high")]
)
def test_reasoning_effort_buckets(budget: int, effort: str):
    assert wire.reasoning_effort_for(budget) == effort


def test_parse_completion_reads_text_usage_and_model():
    completion = wire.parse_completion(json.dumps(openai_body("hello")).encode(), latency_seconds=1.5)
    assert (
        completion.text,
        completion.prompt_tokens,
        completion.completion_tokens,
        completion.reasoning_tokens,
    ) == ("hello", 11, 7, 3)
    assert (completion.served_model, completion.finish_reason, completion.latency_seconds) == (
        "fault-model",
        "stop",
        1.5,
    )


def test_usage_counts_variants():
    assert wire.usage_counts(None) == (0, 0, 0)
    assert wire.usage_counts({"prompt_tokens": 5, "completion_tokens": 9, "reasoning_tokens": 4}) == (5, 9, 4)
    assert wire.usage_counts({"prompt_tokens": -1, "completion_tokens": "x"}) == (0, 0, 0)


@pytest.mark.parametrize(
    "body", [b"not json", b"[1, 2]", b'{"error": {"message": "bad"}}', b'{"choices": [{"x": 1}]}']
)
def test_malformed_bodies_are_endpoint_errors(body: bytes):
    with pytest.raises(EndpointError) as info:
        wire.parse_completion(body, latency_seconds=0)
    assert type(info.value) is EndpointError


def test_empty_choices_ask_for_a_retry_and_empty_length_is_a_timeout():
    with pytest.raises(wire.NoUsableChoice):
        wire.parse_completion(json.dumps(openai_body(choices=False)).encode(), latency_seconds=0)
    with pytest.raises(EndpointTimeout):
        wire.parse_completion(json.dumps(openai_body("", finish_reason="length")).encode(), latency_seconds=0)


def test_retry_after_header_forms():
    assert wire.retry_after_seconds({"retry-after": "3"}) == 3.0
    assert wire.retry_after_seconds({"retry-after-ms": "250"}) == 0.25
    assert wire.retry_after_seconds({"retry-after": "Thu, 01 Jan 1970 00:01:40 GMT"}, now=90.0) == 10.0
    assert wire.retry_after_seconds({"retry-after": "soon"}) is None
    assert wire.retry_after_seconds({}) is None


@pytest.mark.parametrize(
    "status, text",
    [
        (400, "Error code: 400 - {'error': {'code': 'context_length_exceeded', 'message': 'too long'}}"),
        (400, "This model's maximum context length is 8192 tokens. However, you requested 9000 tokens"),
        (400, "Requested tokens (9123) exceed context window of 8192"),
        (400, "the request exceeds the available context size, try increasing it"),
        (413, "prompt is too long: 210000 tokens > 200000 maximum"),
    ],
)
def test_context_overflow_replies_are_scored_as_timeouts_without_retry(status: int, text: str):
    mapped = wire._map_status(status, {}, text)
    assert isinstance(mapped.error, ContextOverflow) and isinstance(mapped.error, EndpointTimeout)
    assert not mapped.retryable


def test_other_bad_requests_stay_endpoint_errors():
    mapped = wire._map_status(400, {}, "Error code: 400 - unknown parameter 'enable_thinking'")
    assert type(mapped.error) is EndpointError and not mapped.retryable
