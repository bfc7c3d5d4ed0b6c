"""Everything that knows the OpenAI chat-completions wire format: request building, response parsing, usage
extraction and mapping the ``openai`` client's errors onto the harness's exception tree.

Two dialects:

- ``openai``: OpenAI's own API. Token limits go in ``max_completion_tokens`` (reasoning models reject
  ``max_tokens``); reasoning is steered with ``reasoning_effort``.
- ``compatible``: other servers (vLLM, llama.cpp's server, Ollama's ``/v1``, hosted services). They take
  ``max_tokens``; thinking is switched through the chat template (``chat_template_kwargs.enable_thinking``,
  the vLLM/llama.cpp convention).

Only explicitly set knobs are sent (``thinking``/``reasoning_budget`` left at None send nothing), because
some endpoints reject parameters a model does not support.
"""

from __future__ import annotations

import email.utils
import json
import re
import time
from dataclasses import dataclass
from typing import Any, Mapping

from bench.errors import ContextOverflow, EndpointError, EndpointTimeout
from bench.model.protocol import Completion, Message, ModelParams

DIALECTS = ("openai", "compatible")

# Reasoning budgets (tokens) up to each bound map to that effort; larger budgets ask for "high".
_EFFORT_BOUNDS = ((0, "minimal"), (2048, "low"), (8192, "medium"))

# How servers say a request does not fit the model's context: OpenAI's error code, vLLM's and OpenAI's message,
# llama-cpp-python's server, llama.cpp's own server, and the wording other hosted services use.
_CONTEXT_OVERFLOW = re.compile(
    r"context_length_exceeded|maximum context length|exceed(s)? (the )?context window"
    r"|exceeds? the available context size|exceed_context_size|prompt is too long",
    re.IGNORECASE,
)


def reasoning_effort_for(budget: int) -> str:
    for bound, effort in _EFFORT_BOUNDS:
        if budget <= bound:
            return effort
    return "high"


def build_request(
    served_name: str, messages: tuple[Message, ...], params: ModelParams, *, dialect: str
) -> dict[str, Any]:
    """Keyword arguments for ``client.chat.completions.create`` (unknown fields travel in ``extra_body``)."""
    if dialect not in DIALECTS:
        raise ValueError(f"unknown dialect {dialect!r}")
    request: dict[str, Any] = {
        "model": served_name,
        "messages": [{"role": m.role, "content": m.content} for m in messages],
        "temperature": params.temperature,
    }
    if params.seed is not None:
        request["seed"] = params.seed
    # The reasoning budget is spent out of the same completion-token allowance as the answer, so the
    # allowance grows by it: max_tokens stays what the answer itself may use.
    allowance = params.max_tokens + (params.reasoning_budget or 0)
    if params.reasoning_budget is not None:
        request["reasoning_effort"] = reasoning_effort_for(params.reasoning_budget)
    if dialect == "openai":
        request["max_completion_tokens"] = allowance
        if params.thinking is False and params.reasoning_budget is None:
            request["reasoning_effort"] = "minimal"
    else:
        request["max_tokens"] = allowance
        if params.thinking is not None:
            request["extra_body"] = {"chat_template_kwargs": {"enable_thinking": params.thinking}}
    return request


class NoUsableChoice(Exception):
    """The endpoint answered 200 but with no choice to read; worth retrying, then a timeout."""


def parse_completion(body: bytes, *, latency_seconds: float) -> Completion:
    """Parse a non-streamed chat-completion body; malformed bodies raise EndpointError."""
    try:
        data = json.loads(body)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise EndpointError(f"endpoint returned malformed JSON ({exc}): {body[:200]!r}") from exc
    if not isinstance(data, dict):
        raise EndpointError(f"endpoint returned JSON that is not an object: {body[:200]!r}")
    if "error" in data and not data.get("choices"):
        raise EndpointError(f"endpoint returned an error body: {str(data['error'])[:300]}")
    choices = data.get("choices")
    if not choices:
        raise NoUsableChoice("response has no choices")
    choice = choices[0]
    message = choice.get("message") if isinstance(choice, dict) else None
    if not isinstance(message, dict):
        raise EndpointError(f"response choice has no message object: {str(choice)[:200]}")
    text = message.get("content") or ""
    if not isinstance(text, str):
        raise EndpointError(f"response content is not a string: {str(text)[:200]}")
    finish_reason = str(choice.get("finish_reason") or "")
    if not text and finish_reason == "length":
        # The whole allowance went to reasoning: no answer within the budget.
        raise EndpointTimeout("the token budget ran out before the model answered (finish_reason=length)")
    prompt_tokens, completion_tokens, reasoning_tokens = usage_counts(data.get("usage"))
    return Completion(
        text=text,
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
        reasoning_tokens=reasoning_tokens,
        latency_seconds=latency_seconds,
        finish_reason=finish_reason or "stop",
        served_model=str(data.get("model") or ""),
    )


def usage_counts(usage: Any) -> tuple[int, int, int]:
    """(prompt, completion, reasoning) tokens; reasoning from ``completion_tokens_details`` (OpenAI, vLLM)
    or a top-level ``reasoning_tokens`` (some compatible servers). Missing numbers count as 0."""
    if not isinstance(usage, Mapping):
        return 0, 0, 0
    details = usage.get("completion_tokens_details")
    reasoning = details.get("reasoning_tokens") if isinstance(details, Mapping) else None
    if reasoning is None:
        reasoning = usage.get("reasoning_tokens")
    return _count(usage.get("prompt_tokens")), _count(usage.get("completion_tokens")), _count(reasoning)


def _count(value: Any) -> int:
    return value if isinstance(value, int) and value >= 0 else 0


@dataclass(frozen=True)
class MappedError:
    error: EndpointError
    retryable: bool
    retry_after: float | None = None


def map_exception(exc: BaseException) -> MappedError | None:
    """Map an exception raised by the openai client (or by the HTTP library underneath it while a body is
    read) to the harness's error; None when it is neither (a programming error: let it travel)."""
    import openai  # lazy: only models that talk to an endpoint need it

    if isinstance(exc, openai.APITimeoutError):
        return MappedError(EndpointTimeout(f"endpoint did not answer in time: {exc}"), retryable=False)
    if isinstance(exc, openai.APIConnectionError):
        return MappedError(EndpointError(f"cannot reach endpoint: {_cause(exc)}"), retryable=True)
    if isinstance(exc, openai.APIStatusError):
        return _map_status(exc.status_code, exc.response.headers, str(exc))
    if isinstance(exc, openai.APIResponseValidationError):
        return MappedError(EndpointError(f"endpoint response failed validation: {exc}"), retryable=False)
    if _is_transport_error(exc):
        # openai 2.x sits on httpx, 3.x on httpx2; errors while streaming a body are not wrapped by the
        # client, so they are recognised by family rather than by importing either library.
        if isinstance(exc, TimeoutError) or "Timeout" in type(exc).__name__:
            return MappedError(EndpointTimeout(f"endpoint stalled while sending: {exc!r}"), retryable=False)
        return MappedError(EndpointError(f"connection broke while reading the response: {exc!r}"), True)
    return None


def _map_status(status: int, headers: Mapping[str, str], text: str) -> MappedError:
    if status in (401, 403):
        return MappedError(EndpointError(f"endpoint refused credentials (HTTP {status}): {text}"), False)
    if status == 429:
        error = EndpointError(f"rate limited (HTTP 429): {text}")
        return MappedError(error, True, retry_after_seconds(headers))
    if status == 408:
        return MappedError(EndpointTimeout(f"endpoint timed out (HTTP 408): {text}"), False)
    if status in (400, 413) and _CONTEXT_OVERFLOW.search(text):
        overflow = ContextOverflow(f"the prompt does not fit the model's context (HTTP {status}): {text}")
        return MappedError(overflow, retryable=False)
    if status >= 500:
        error = EndpointError(f"endpoint failed (HTTP {status}): {text}")
        return MappedError(error, True, retry_after_seconds(headers))
    return MappedError(EndpointError(f"endpoint rejected the request (HTTP {status}): {text}"), False)


def _is_transport_error(exc: BaseException) -> bool:
    module = type(exc).__module__.split(".")[0]
    if module in ("httpx", "httpx2", "httpcore", "httpcore2"):
        return True
    return isinstance(exc, (TimeoutError, ConnectionError))


def _cause(exc: BaseException) -> str:
    cause = exc.__cause__ or exc.__context__
    return f"{exc} ({cause!r})" if cause else str(exc)


def retry_after_seconds(headers: Mapping[str, str] | None, *, now: float | None = None) -> float | None:
    """Seconds the server asks us to wait: ``retry-after-ms``, ``retry-after`` seconds or HTTP date."""
    if not headers:
        return None
    for name, divisor in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        try:
            return max(0.0, float(value) / divisor)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        return max(0.0, when.timestamp() - (time.time() if now is None else now))
    return None
