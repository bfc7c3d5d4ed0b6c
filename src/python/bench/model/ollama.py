"""``ollama/<model:tag>``: a model served by Ollama, through its native ``/api/chat``.

``OLLAMA_HOST`` (default ``http://127.0.0.1:11434``; a bare ``host:port`` gets ``http://``). Retries and
error mapping follow the OpenAI-compatible provider: 429/5xx/dropped connections are retried inside the
call's budget, a missing model or other 4xx is an EndpointError, no answer in the budget an EndpointTimeout.
Before a run, :meth:`OllamaModel.preflight` asks the server's model list (``GET /api/tags``) for the model.
"""

from __future__ import annotations

import os
import threading
import time
from typing import Any, Callable

from bench.errors import EndpointError, EndpointTimeout, UsageError
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

    def preflight(self, timeout: float = 15.0) -> None:
        """Before a run: Ollama answers at the base URL and has the model. Unreachable, or an error of the
        server, is an EndpointError (exit 3); a server that is not Ollama (no ``/api/tags``) or lacks the model
        a UsageError (exit 2) saying what to set or pull."""
        import httpx

        url = f"{self.base_url}/api/tags"
        try:
            response = self._client().get(url, timeout=timeout)
        except httpx.HTTPError as exc:
            raise EndpointError(f"{self.model_id}: cannot reach ollama at {self.base_url} ({exc!r}); is `ollama "
                                f"serve` running there? (OLLAMA_HOST sets the address)") from exc
        if response.status_code in (404, 405, 501):
            raise UsageError(f"{self.model_id}: GET {url} answered HTTP {response.status_code}: "
                             f"{self.base_url} is not an Ollama server; set OLLAMA_HOST to one")
        if response.status_code != 200:
            raise EndpointError(f"{self.model_id}: GET {url} answered HTTP {response.status_code}: "
                                f"{wire.error_text(response.content)}")
        served = wire.model_names(response.content)
        if wire.full_name(self.served_name) not in served:
            have = ", ".join(sorted(served)) or "no models"
            raise UsageError(f"{self.model_id}: ollama at {self.base_url} has no model {self.served_name!r} "
                             f"(it has {have}); fetch it with `ollama pull {self.served_name}`")

    def _client(self) -> Any:
        with self._lock:
            if self._http is None:
                import httpx

                # trust_env=False: proxy variables must not reroute a loopback model server.
                self._http = httpx.Client(trust_env=False)
            return self._http
