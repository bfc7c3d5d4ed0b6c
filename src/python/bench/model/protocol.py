"""What every model backend accepts and returns.

A model turns a conversation into text. The harness, never the model, decides what the text is worth: the
text is parsed into SEARCH/REPLACE edits and judged by tests. Non-LLM models (scripted replay, the
search-based repairer) see the same conversation plus a :class:`RequestContext` describing where in the run
the request sits; LLM providers ignore the context.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable


@dataclass(frozen=True)
class Message:
    role: str  # "system" | "user" | "assistant"
    content: str


@dataclass(frozen=True)
class ModelParams:
    temperature: float = 0.0
    seed: int | None = 0
    max_tokens: int = 2048
    reasoning_budget: int | None = None  # thinking tokens, where the provider has such a knob
    context_size: int | None = None
    thinking: bool | None = None  # None = provider default
    timeout_seconds: float = 120.0


@dataclass(frozen=True)
class RequestContext:
    task_id: str
    turn: int = 1  # 1-based turn of the repair loop
    sample: int = 0  # 0-based independent draw
    condition: str = "full"  # feedback condition: "full" | "count-only"
    source_files: tuple[tuple[str, str], ...] = ()  # (path, current content) of the editable files
    feedback: str = ""  # what the harness fed back after the previous turn ("" on turn 1)
    base_files: tuple[tuple[str, str], ...] = ()  # (path, content at turn 1) of the editable files


@dataclass(frozen=True)
class Completion:
    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    reasoning_tokens: int = 0
    latency_seconds: float = 0.0  # never part of a hashed record
    finish_reason: str = "stop"
    served_model: str = ""  # what the endpoint says it ran


@runtime_checkable
class Model(Protocol):
    model_id: str  # e.g. "openai/gpt-5-mini", "scripted/study", "repairer/ast"
    deterministic: bool  # True when the same inputs always give the same text (results are then asserted)

    def complete(
        self, messages: tuple[Message, ...], params: ModelParams, context: RequestContext
    ) -> Completion:
        """Return the model's reply. Raise EndpointTimeout when no usable reply came within the budget and
        EndpointError when the endpoint failed (connection, auth, server errors after retries)."""
        ...
