"""Find a model backend by id: ``provider/name``, split on the first ``/`` only.

Ollama tags contain ``:`` and OpenAI-compatible services nest names (``openai-api/groq/llama-3/70b`` is
provider ``openai-api`` with name ``groq/llama-3/70b``), so everything after the first ``/`` is the
provider's to interpret.

Provider modules are imported only when a model of theirs is asked for: importing this module never imports
openai, httpx or llama_cpp. A provider module registers its class with :func:`register`; the registry calls
it as ``cls(name, params)`` and the instance must satisfy :class:`bench.model.protocol.Model` (its
``model_id`` should be the full ``provider/name``).
"""

from __future__ import annotations

import importlib
from typing import Callable, TypeVar

from bench.errors import UsageError
from bench.model.protocol import Model, ModelParams

ModelFactory = Callable[[str, ModelParams], Model]
F = TypeVar("F", bound=ModelFactory)

# provider -> module that registers it on import
PROVIDER_MODULES: dict[str, str] = {
    "scripted": "bench.model.scripted",
    "repairer": "bench.model.repairer",
    "openai": "bench.model.openai_compatible",
    "openai-api": "bench.model.openai_compatible",
    "vllm": "bench.model.openai_compatible",
    "ollama": "bench.model.ollama",
    "llamacpp": "bench.model.llamacpp",
}

_factories: dict[str, ModelFactory] = {}


def register(provider: str) -> Callable[[F], F]:
    """Class decorator: make ``provider/<name>`` ids build ``cls(name, params)``."""

    def decorate(factory: F) -> F:
        _factories[provider] = factory
        return factory

    return decorate


def known_providers() -> tuple[str, ...]:
    return tuple(sorted(set(PROVIDER_MODULES) | set(_factories)))


def split_model_id(model_id: str) -> tuple[str, str]:
    """``"ollama/qwen3:0.6b"`` -> ``("ollama", "qwen3:0.6b")``; both parts must be non-empty."""
    provider, sep, name = model_id.partition("/")
    if not sep or not provider or not name:
        raise UsageError(
            f"model id {model_id!r} is not of the form provider/name "
            f"(providers: {', '.join(known_providers())})"
        )
    return provider, name


def get_model(model_id: str, params: ModelParams | None = None) -> Model:
    """Build the model named by ``model_id``; unknown providers raise UsageError listing the known ones."""
    provider, name = split_model_id(model_id)
    factory = _factory_for(provider)
    return factory(name, params if params is not None else ModelParams())


def declares_deterministic(model_id: str) -> bool:
    """Whether the provider's registered class says, for every model and setting, that the same inputs give the
    same reply (``deterministic = True`` on the class, not decided per instance). False for an id that names no
    provider (a prediction file's model name)."""
    provider, sep, _ = model_id.partition("/")
    if not sep:
        return False
    try:
        factory = _factory_for(provider)
    except UsageError:  # no such provider, or its module cannot be loaded here
        return False
    return getattr(factory, "deterministic", False) is True


def _factory_for(provider: str) -> ModelFactory:
    factory = _factories.get(provider)
    if factory is None and provider not in PROVIDER_MODULES:
        from bench.plugins import load_plugins

        load_plugins()  # an extension named in BENCH_PLUGINS may register it
        factory = _factories.get(provider)
    if factory is not None:
        return factory
    module = PROVIDER_MODULES.get(provider)
    if module is None:
        raise UsageError(
            f"unknown model provider {provider!r}; known providers: {', '.join(known_providers())}"
        )
    try:
        importlib.import_module(module)
    except ImportError as exc:  # the provider's module or a library it needs is not installed
        raise UsageError(f"model provider {provider!r} cannot be loaded: {exc}") from exc
    factory = _factories.get(provider)
    if factory is None:
        # The module imported but did not register the provider it is listed for: a wiring bug, yet the
        # run cannot go on either way.
        raise UsageError(f"model provider {provider!r}: module {module} did not register it")
    return factory
