"""Models behind an OpenAI-compatible chat-completions endpoint, reached through the ``openai`` client.

Providers registered here (environment variables read only here, and never passed into a sandbox):

- ``openai/<model>``: OpenAI. ``OPENAI_API_KEY`` (required), ``OPENAI_BASE_URL`` (optional).
- ``openai-api/<service>/<model>``: any compatible service. ``<SERVICE>_BASE_URL`` (required) and
  ``<SERVICE>_API_KEY`` (optional), SERVICE upper-cased with ``-`` turned into ``_``.
- ``vllm/<model>``: a vLLM server. ``VLLM_BASE_URL`` (default ``http://127.0.0.1:8000/v1``),
  ``VLLM_API_KEY`` (optional). Thinking is switched with ``chat_template_kwargs.enable_thinking``.

The client's own retries are off; :mod:`bench.model._retry` retries inside the call's single time budget so
that every failure maps onto one harness error (see ``_openai_wire.map_exception``). The body is read in
chunks against the deadline, so an endpoint that trickles bytes forever is a timeout, not a hang.
"""

from __future__ import annotations

import os
import re
import threading
import time
from typing import Any, Callable

from bench.errors import EndpointError, EndpointTimeout, UsageError
from bench.model import _openai_wire as wire
from bench.model._retry import DEFAULT_RETRY, Retry, RetryPolicy, call_with_retries, read_capped_body
from bench.model.protocol import Completion, Message, ModelParams, RequestContext
from bench.model.registry import register

DEFAULT_VLLM_BASE_URL = "http://127.0.0.1:8000/v1"
# Local servers need no key, but the openai client insists on one; this placeholder is sent instead.
NO_API_KEY = "none"
_SERVICE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]*$")
# The preflight's chat completion: a few tokens (some reasoning models refuse a budget of one).
PREFLIGHT_TOKENS = 16
# Answers to the chat completion that no retry changes: no such route, method or model on this server.
UNSERVED_STATUSES = (404, 405, 501)
_CLIENT_PREFIX = re.compile(r"^Error code: \d+ - ")  # what the openai client puts before the server's words


class OpenAICompatibleModel:
    """One model on one endpoint. Thread-safe: the underlying client is shared across calls."""

    deterministic = False  # a remote endpoint promises nothing, even at temperature 0 with a seed

    def __init__(
        self,
        model_id: str,
        served_name: str,
        *,
        base_url: str | None,
        api_key: str | None,
        dialect: str = "compatible",
        retry: RetryPolicy = DEFAULT_RETRY,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if dialect not in wire.DIALECTS:
            raise ValueError(f"unknown dialect {dialect!r}")
        self.model_id = model_id
        self.served_name = served_name
        self.base_url = base_url
        self.dialect = dialect
        self.retry = retry
        self._api_key = api_key or NO_API_KEY
        self._clock = clock
        self._sleep = sleep
        self._client_lock = threading.Lock()
        self._client_instance: Any = None

    def __repr__(self) -> str:  # never show the key
        return f"OpenAICompatibleModel({self.model_id!r}, base_url={self.base_url!r})"

    def complete(
        self, messages: tuple[Message, ...], params: ModelParams, context: RequestContext
    ) -> Completion:
        start = self._clock()
        deadline = start + params.timeout_seconds
        request = wire.build_request(self.served_name, messages, params, dialect=self.dialect)

        def attempt(remaining: float) -> Completion:
            body = self._post(request, remaining, deadline)
            try:
                return wire.parse_completion(body, latency_seconds=self._clock() - start)
            except wire.NoUsableChoice as exc:
                raise Retry(EndpointTimeout(f"endpoint gave no usable answer: {exc}")) from exc

        return call_with_retries(attempt, self.retry, deadline, clock=self._clock, sleep=self._sleep)

    def _post(self, request: dict[str, Any], remaining: float, deadline: float) -> bytes:
        client = self._client()
        try:
            with client.chat.completions.with_streaming_response.create(
                **request, timeout=remaining
            ) as response:
                return read_capped_body(response, deadline, self._clock, what="response")
        except EndpointError:
            raise
        except Exception as exc:  # classified below; anything unrecognised is re-raised untouched
            mapped = wire.map_exception(exc)
            if mapped is None:
                raise
            if mapped.retryable:
                raise Retry(mapped.error, mapped.retry_after) from exc
            raise mapped.error from exc

    def preflight(self, timeout: float = 15.0) -> None:
        """Before a run: the endpoint answers, takes the key and serves the request every unit sends.

        ``GET /models`` first: a rejected key is a UsageError (exit 2), an endpoint that cannot be reached an
        EndpointError (exit 3). Then one chat completion of a few tokens with the run's model name, the route
        the run uses: a route the server does not have or a model it does not know (404, 405, 501) is a
        UsageError naming the URL and what the server said, instead of every unit failing with it. A slow,
        busy or rate-limited answer, or one refusing the probe's own parameters (400), passes: the run's
        retries and records deal with those."""
        import openai

        where = self.base_url or "api.openai.com"
        try:
            self._client().models.list(timeout=timeout)
            models_status = 200
        except openai.APIStatusError as exc:
            self._refuse_key(exc)
            models_status = exc.status_code
        except openai.APIConnectionError as exc:  # refused, DNS, TLS, timeout
            raise EndpointError(f"{self.model_id}: cannot reach endpoint {where}: {exc} ({exc.__cause__!r})") from exc
        except openai.APIError:  # an answer the client cannot read as a model list: the probe below decides
            models_status = 0
        probe = wire.build_request(self.served_name, (Message("user", "Reply with OK."),),
                                   ModelParams(max_tokens=PREFLIGHT_TOKENS, seed=None), dialect=self.dialect)
        try:
            self._client().chat.completions.create(**probe, timeout=timeout)
        except openai.APIStatusError as exc:
            self._refuse_key(exc)
            if exc.status_code in UNSERVED_STATUSES:
                raise UsageError(unserved_message(self.model_id, self.served_name, where, exc.status_code,
                                                  _server_said(exc), models_status)) from exc
        except openai.APITimeoutError:
            return  # reachable but slow (a model still loading): the run's own budget decides
        except openai.APIConnectionError as exc:
            raise EndpointError(f"{self.model_id}: cannot reach endpoint {where}: {exc} ({exc.__cause__!r})") from exc
        except openai.APIError:
            return

    def _refuse_key(self, exc) -> None:
        if exc.status_code in (401, 403):
            raise UsageError(f"{self.model_id}: the endpoint {self.base_url or 'api.openai.com'} rejected the API "
                             f"key ({exc.status_code})") from exc

    def _client(self) -> Any:
        with self._client_lock:
            if self._client_instance is None:
                import openai  # lazy: importing the registry must not import openai

                self._client_instance = openai.OpenAI(
                    api_key=self._api_key, base_url=self.base_url, max_retries=0
                )
            return self._client_instance


def unserved_message(model_id: str, served_name: str, where: str, status: int, said: str,
                     models_status: int) -> str:
    """Why a run cannot start: the chat-completions route or the model is not served at ``where``."""
    listing = f"; GET {where}/models answered {models_status} too" if models_status != 200 else ""
    return (f"{model_id}: POST {where}/chat/completions for model {served_name!r} answered HTTP {status} "
            f"({said[:200]}){listing}: this server does not serve that model through an OpenAI-compatible "
            f"chat-completions route. Check the base URL (it usually ends in /v1) and the model name")


def _server_said(exc) -> str:
    """The server's own words in an error answer: the JSON body's ``error.message`` where there is one (client
    versions differ in how much of the body they put in ``message``), else the message without the client's
    prefix."""
    body = getattr(exc, "body", None)
    error = body.get("error", body) if isinstance(body, dict) else body
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        return error["message"]
    if isinstance(error, str) and error:
        return error
    return _CLIENT_PREFIX.sub("", str(exc.message))


def _env(name: str) -> str | None:
    value = os.environ.get(name, "").strip()
    if value and name.endswith("_API_KEY") and not (value.isascii() and value.isprintable()):
        # An HTTP header carries ASCII only: a key with "…" or a stray control character is a placeholder or a
        # paste gone wrong, refused here rather than as an encoding error deep in the HTTP client.
        raise UsageError(f"{name} holds characters an HTTP header cannot carry (non-ASCII or control "
                         f"characters): is it a placeholder?")
    return value or None


@register("openai")
def openai_model(name: str, params: ModelParams) -> OpenAICompatibleModel:
    api_key = _env("OPENAI_API_KEY")
    if api_key is None:
        raise UsageError("model openai/%s needs OPENAI_API_KEY in the environment" % name)
    return OpenAICompatibleModel(
        f"openai/{name}", name, base_url=_env("OPENAI_BASE_URL"), api_key=api_key, dialect="openai"
    )


def service_env_prefix(service: str) -> str:
    """``"together-ai"`` -> ``"TOGETHER_AI"``: the prefix of ``<SERVICE>_BASE_URL`` / ``_API_KEY``."""
    return service.upper().replace("-", "_")


@register("openai-api")
def openai_api_model(name: str, params: ModelParams) -> OpenAICompatibleModel:
    service, _, model = name.partition("/")
    if not _SERVICE_NAME.match(service) or not model:
        raise UsageError(f"model openai-api/{name}: expected openai-api/<service>/<model>")
    prefix = service_env_prefix(service)
    base_url = _env(f"{prefix}_BASE_URL")
    if base_url is None:
        raise UsageError(f"model openai-api/{name} needs {prefix}_BASE_URL in the environment")
    return OpenAICompatibleModel(
        f"openai-api/{name}", model, base_url=base_url, api_key=_env(f"{prefix}_API_KEY")
    )


@register("vllm")
def vllm_model(name: str, params: ModelParams) -> OpenAICompatibleModel:
    base_url = _env("VLLM_BASE_URL") or DEFAULT_VLLM_BASE_URL
    return OpenAICompatibleModel(f"vllm/{name}", name, base_url=base_url, api_key=_env("VLLM_API_KEY"))
