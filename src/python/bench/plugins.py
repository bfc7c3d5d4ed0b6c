"""Extensions that live outside the harness: the modules named in ``BENCH_PLUGINS`` (comma-separated import
names), imported once when a registry is asked for a name it does not know. Such a module registers what it
adds as the built-in ones do (``bench.model.registry.register``, ``bench.sandbox.registry.register``), so a
model provider or a sandbox backend needs no edit of the harness (docs/ARCHITECTURE.md §5)."""

from __future__ import annotations

import importlib
import threading

from bench.errors import UsageError

_loaded: set[str] = set()
_lock = threading.Lock()


def load_plugins() -> tuple[str, ...]:
    """Import every module ``BENCH_PLUGINS`` names that is not imported yet; returns the names."""
    from bench.variables import get

    names = tuple(name.strip() for name in get("BENCH_PLUGINS").split(",") if name.strip())
    with _lock:
        for name in names:
            if name in _loaded:
                continue
            try:
                importlib.import_module(name)
            except ImportError as exc:
                raise UsageError(f"BENCH_PLUGINS names {name!r}, which cannot be imported: {exc}") from None
            _loaded.add(name)
    return names
