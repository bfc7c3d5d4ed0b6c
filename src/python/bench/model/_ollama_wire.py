"""Everything that knows Ollama's native API: chat (``POST /api/chat``) request building and parsing, and the
model list (``GET /api/tags``).

The native API is used rather than Ollama's ``/v1`` because only it has ``think`` on/off and the runner
options (``num_predict``, ``num_ctx``). Ollama counts thinking tokens inside ``eval_count`` and does not
report them apart, so ``reasoning_tokens`` stays 0 here.
"""

from __future__ import annotations

import json
from typing import Any

from bench.errors import EndpointError, EndpointTimeout
from bench.model.protocol import Completion, Message, ModelParams


def build_request(served_name: str, messages: tuple[Message, ...], params: ModelParams) -> dict[str, Any]:
    options: dict[str, Any] = {
        "temperature": params.temperature,
        # Thinking tokens come out of num_predict too, so the reasoning budget is added to the answer's.
        "num_predict": params.max_tokens + (params.reasoning_budget or 0),
    }
    if params.seed is not None:
        options["seed"] = params.seed
    if params.context_size is not None:
        options["num_ctx"] = params.context_size
    request: dict[str, Any] = {
        "model": served_name,
        "messages": [{"role": m.role, "content": m.content} for m in messages],
        "stream": False,
        "options": options,
    }
    if params.thinking is not None:
        request["think"] = params.thinking
    return request


class NoUsableMessage(Exception):
    """A 200 without a finished message; worth retrying, then a timeout."""


def parse_response(body: bytes, *, latency_seconds: float) -> Completion:
    try:
        data = json.loads(body)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise EndpointError(f"ollama returned malformed JSON ({exc}): {body[:200]!r}") from exc
    if not isinstance(data, dict):
        raise EndpointError(f"ollama returned JSON that is not an object: {body[:200]!r}")
    if "error" in data:
        raise EndpointError(f"ollama error: {str(data['error'])[:300]}")
    message = data.get("message")
    if not isinstance(message, dict) or data.get("done") is False:
        raise NoUsableMessage("response has no finished message")
    text = message.get("content") or ""
    if not isinstance(text, str):
        raise EndpointError(f"ollama content is not a string: {str(text)[:200]}")
    finish_reason = str(data.get("done_reason") or "stop")
    if not text and finish_reason == "length":
        raise EndpointTimeout("num_predict ran out before the model answered (done_reason=length)")
    return Completion(
        text=text,
        prompt_tokens=_count(data.get("prompt_eval_count")),
        completion_tokens=_count(data.get("eval_count")),
        reasoning_tokens=0,
        latency_seconds=latency_seconds,
        finish_reason=finish_reason,
        served_model=str(data.get("model") or ""),
    )


def _count(value: Any) -> int:
    return value if isinstance(value, int) and value >= 0 else 0


def error_text(body: bytes) -> str:
    """Ollama's ``{"error": "..."}`` message, or the start of the body."""
    try:
        data = json.loads(body)
    except ValueError:
        return body[:200].decode("utf-8", "replace")
    if isinstance(data, dict) and "error" in data:
        return str(data["error"])[:300]
    return body[:200].decode("utf-8", "replace")


def full_name(name: str) -> str:
    """A model name as Ollama lists it: ``llama3`` is ``llama3:latest``."""
    return name if ":" in name.rsplit("/", 1)[-1] else f"{name}:latest"


def model_names(body: bytes) -> frozenset[str]:
    """The full names of the models in a ``GET /api/tags`` answer (``{"models": [{"name": ...}, ...]}``)."""
    try:
        data = json.loads(body)
    except ValueError as exc:
        raise EndpointError(f"ollama's model list is not JSON: {body[:200]!r}") from exc
    models = data.get("models") if isinstance(data, dict) else None
    if not isinstance(models, list):
        raise EndpointError(f"ollama's model list has no models array: {body[:200]!r}")
    names = set()
    for entry in models:
        if isinstance(entry, dict):
            names.update(full_name(str(entry[key])) for key in ("name", "model") if entry.get(key))
    return frozenset(names)
