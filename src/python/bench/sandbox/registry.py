"""Sandbox backends by name. A backend module registers its class with ``@register(name)``; the module is
imported only when that backend is asked for, so ``import bench`` never pulls in docker or friends."""

from __future__ import annotations

import importlib
import threading
from typing import Callable

from bench.errors import SandboxError, UsageError
from bench.sandbox.protocol import Sandbox

# name → module that registers it (imported lazily)
PROVIDERS = {
    "bwrap": "bench.sandbox.bwrap",
    "docker": "bench.sandbox.docker",
}

_registered: dict[str, type] = {}
_lock = threading.Lock()


def register(name: str) -> Callable[[type], type]:
    def decorate(cls: type) -> type:
        with _lock:
            _registered[name] = cls
        return cls

    return decorate


def available() -> tuple[str, ...]:
    """Names of the known backends (whether or not their host tools are installed)."""
    return tuple(sorted(set(PROVIDERS) | set(_registered)))


def get_sandbox(name: str | None = None) -> Sandbox:
    """A fresh backend instance; ``None`` means ``$BENCH_SANDBOX`` (default bwrap)."""
    if name is None:
        from bench.variables import get

        name = get("BENCH_SANDBOX")
    if name not in _registered and name not in PROVIDERS:
        from bench.plugins import load_plugins

        load_plugins()
    if name not in _registered:
        module = PROVIDERS.get(name)
        if module is None:
            raise UsageError(f"unknown sandbox backend {name!r}; known: {', '.join(available())}")
        try:
            importlib.import_module(module)
        except ImportError as exc:
            raise SandboxError(f"sandbox backend {name!r} cannot be loaded: {exc}") from None
        if name not in _registered:
            raise SandboxError(f"{module} did not register a backend named {name!r}")
    return _registered[name]()
