"""Counting a prompt's tokens for a context budget (``--context-budget``): a model's own tokenizer or an estimate.

* ``llamacpp/<gguf or short name>``: the GGUF's own vocabulary, read by llama.cpp (``vocab_only``: no weights
  are loaded), exactly what the ``llamacpp`` provider feeds the model;
* ``estimate``: one token per 2.4 UTF-8 bytes, rounded up — for providers whose tokenizer the harness cannot
  run. On the pool's 707 default real-code prompts SmolLM2's tokenizer gives 2.42 to 4.32 bytes a token
  (median 3.66; ``scripts/context_measure.py`` prints the range), so there the estimate errs on the side of a
  shorter prompt; 31 of the 4,949 partial prompts measured fall below 2.4 (down to 1.9).

A chat prompt counts its messages' contents plus :data:`TOKENS_PER_MESSAGE` for the role markers a chat
template wraps around each one (the figure the ``llamacpp`` provider checks a prompt against its context with).
"""

from __future__ import annotations

import functools
from typing import Protocol

from bench.errors import UsageError

TOKENS_PER_MESSAGE = 8
ESTIMATE = "estimate"
# bytes per token, as a fraction: 12 / 5 = 2.4
ESTIMATE_TOKENS, ESTIMATE_BYTES = 5, 12


class Tokenizer(Protocol):
    name: str

    def count(self, text: str) -> int: ...


class ByteEstimate:
    name = ESTIMATE

    def count(self, text: str) -> int:
        return -(-len(text.encode("utf-8", "surrogatepass")) * ESTIMATE_TOKENS // ESTIMATE_BYTES)  # exact ceiling


@functools.cache
def get_tokenizer(name: str) -> Tokenizer:
    """``estimate``, or ``<provider>/<model>`` for a provider whose module offers ``make_tokenizer(model)``
    (llama.cpp's does); a clear error for anything else. The provider module is imported only here, by name,
    so that nothing else pulls in its heavy dependencies."""
    import importlib

    from bench.model.registry import PROVIDER_MODULES

    if name == ESTIMATE:
        return ByteEstimate()
    provider, _, model = name.partition("/")
    module = PROVIDER_MODULES.get(provider)
    make = getattr(importlib.import_module(module), "make_tokenizer", None) if module and model else None
    if make is None:
        raise UsageError(f"unknown tokenizer {name!r}: use 'estimate' or 'llamacpp/<gguf or smollm2>'")
    return make(model)


def tokenizer_for_model(model_id: str | None) -> str:
    """The tokenizer a model's prompts are budgeted with by default: its own where the harness can run it."""
    if model_id and model_id.startswith("llamacpp/"):
        return model_id
    return ESTIMATE


def count_messages(tokenizer: Tokenizer, contents) -> int:
    """Tokens of a chat prompt whose messages have ``contents``."""
    return sum(tokenizer.count(text) + TOKENS_PER_MESSAGE for text in contents)
