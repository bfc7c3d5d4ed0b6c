"""Counting a prompt's tokens for a context budget (``--context-budget``): a model's own tokenizer or an estimate.

* ``llamacpp/<gguf or short name>``: the GGUF's own vocabulary, read by llama.cpp (``vocab_only``: no weights
  are loaded), exactly what the ``llamacpp`` provider feeds the model;
* ``estimate``: one token per 2.4 UTF-8 bytes, rounded up — for providers whose tokenizer the harness cannot
  run. On the pool's default prompts SmolLM2's tokenizer gives 2.5 to 4.3 bytes a token (median 3.8;
  ``scripts/context_measure.py`` prints the range), so the estimate errs on the side of a shorter prompt.

A chat prompt counts its messages' contents plus :data:`TOKENS_PER_MESSAGE` for the role markers a chat
template wraps around each one (the figure the ``llamacpp`` provider checks a prompt against its context with).
"""

from __future__ import annotations

import functools
import threading
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


class LlamaCppTokenizer:
    """A GGUF's tokenizer; calls are serialised (one llama.cpp vocabulary object is not thread-safe)."""

    def __init__(self, name: str) -> None:
        from bench.model.llamacpp import LLAMA_CPP_MISSING, llama_cpp_available, resolve_gguf

        if not llama_cpp_available():
            raise UsageError(LLAMA_CPP_MISSING)
        from llama_cpp import Llama

        self.name = f"llamacpp/{name}"
        self._vocab = Llama(model_path=str(resolve_gguf(name)), vocab_only=True, verbose=False)
        self._lock = threading.Lock()

    def count(self, text: str) -> int:
        with self._lock:
            return len(self._vocab.tokenize(text.encode("utf-8", "surrogatepass"), add_bos=False, special=False))


@functools.cache
def get_tokenizer(name: str) -> Tokenizer:
    """``estimate`` or ``llamacpp/<name>``; a clear error for anything else."""
    if name == ESTIMATE:
        return ByteEstimate()
    provider, _, model = name.partition("/")
    if provider == "llamacpp" and model:
        return LlamaCppTokenizer(model)
    raise UsageError(f"unknown tokenizer {name!r}: use 'estimate' or 'llamacpp/<gguf or smollm2>'")


def tokenizer_for_model(model_id: str | None) -> str:
    """The tokenizer a model's prompts are budgeted with by default: its own where the harness can run it."""
    if model_id and model_id.startswith("llamacpp/"):
        return model_id
    return ESTIMATE


def count_messages(tokenizer: Tokenizer, contents) -> int:
    """Tokens of a chat prompt whose messages have ``contents``."""
    return sum(tokenizer.count(text) + TOKENS_PER_MESSAGE for text in contents)
