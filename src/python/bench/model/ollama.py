"""``ollama/<model:tag>``: a model served by Ollama, through its native ``/api/chat``.

``OLLAMA_HOST`` (default ``http://127.0.0.1:11434``; a bare ``host:port`` gets ``http://``). Retries and
error mapping follow the OpenAI-compatible provider: 429/5xx/dropped connections are retried inside the
call's budget, a missing model or other 4xx is an EndpointError, no answer in the budget an EndpointTimeout.
"""

from __future__ import annotations

import os
import threading
import time
from typing import Any, Callable

from bench.errors import EndpointError, EndpointTimeout
from bench.model import _ollama_wire as wire
from bench.model._openai_wire import retry_after_seconds
from bench.model._retry import DEFAULT_RETRY, Retry, RetryPolicy, call_with_retries, read_capped_body
from bench.model.protocol import Completion, Message, ModelParams, RequestContext
from bench.model.registry import register

DEFAULT_OLLAMA_HOST = "http://127.0.0.1:11434"


def ollama_base_url() -> str:
    host = os.environ.get("OLLAMA_HOST", "").strip() or DEFAULT_OLLAMA_HOST
    if "://" not in host:
        host = "http://" + host
    return host.rstrip("/")


@register("ollama")
class OllamaModel:
    deterministic = False

    def __init__(
        self,
        name: str,
        params: ModelParams | None = None,
        *,
        base_url: str | None = None,
        retry: RetryPolicy = DEFAULT_RETRY,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.model_id = f"ollama/{name}"
        self.served_name = name
        self.base_url = (base_url or ollama_base_url()).rstrip("/")
        self.retry = retry
        self._clock = clock
        self._sleep = sleep
        self._lock = threading.Lock()
        self._http: Any = None

    def complete(
        self, messages: tuple[Message, ...], params: ModelParams, context: RequestContext
    ) -> Completion:
        start = self._clock()
        deadline = start + params.timeout_seconds
        request = wire.build_request(self.served_name, messages, params)

        def attempt(remaining: float) -> Completion:
            body = self._post(request, remaining, deadline)
            try:
                return wire.parse_response(body, latency_seconds=self._clock() - start)
            except wire.NoUsableMessage as exc:
                raise Retry(EndpointTimeout(f"ollama gave no usable answer: {exc}")) from exc

        return call_with_retries(attempt, self.retry, deadline, clock=self._clock, sleep=self._sleep)

    def _post(self, request: dict[str, Any], remaining: float, deadline: float) -> bytes:
        import httpx  # lazy: importing the registry stays light

        try:
            with self._client().stream(
                "POST", f"{self.base_url}/api/chat", json=request, timeout=remaining
            ) as response:
                body = read_capped_body(response, deadline, self._clock, what="ollama response")
        except httpx.TimeoutException as exc:
            raise EndpointTimeout(f"ollama did not answer in time: {exc!r}") from exc
        except httpx.HTTPError as exc:
            raise Retry(EndpointError(f"cannot reach ollama at {self.base_url}: {exc!r}")) from exc
        status = response.status_code
        if status == 200:
            return body
        message = f"ollama HTTP {status}: {wire.error_text(body)}"
        if status == 429 or status >= 500:
            raise Retry(EndpointError(message), retry_after_seconds(response.headers))
        raise EndpointError(message)

    def _client(self) -> Any:
        with self._lock:
            if self._http is None:
                import httpx

                # trust_env=False: proxy variables must not reroute a loopback model server.
                self._http = httpx.Client(trust_env=False)
            return self._http
