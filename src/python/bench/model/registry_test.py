from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from bench.errors import UsageError
from bench.model import registry
from bench.model.openai_compatible import OpenAICompatibleModel
from bench.model.protocol import ModelParams
from bench.model.registry import get_model, known_providers, split_model_id

SRC = Path(__file__).resolve().parents[2]


def test_split_on_first_slash_keeps_ollama_tag():
    assert split_model_id("ollama/qwen3:0.6b") == ("ollama", "qwen3:0.6b")


def test_split_on_first_slash_keeps_nested_service_model():
    assert split_model_id("openai-api/groq/llama-3/70b") == ("openai-api", "groq/llama-3/70b")


@pytest.mark.parametrize("bad", ["openai", "/gpt", "openai/", ""])
def test_malformed_ids_are_usage_errors(bad: str):
    with pytest.raises(UsageError):
        split_model_id(bad)


def test_unknown_provider_lists_known_ones():
    with pytest.raises(UsageError) as info:
        get_model("nosuch/model")
    for provider in ("scripted", "repairer", "openai", "openai-api", "vllm", "ollama", "llamacpp"):
        assert provider in str(info.value)


def test_known_providers_include_the_lazily_registered_ones():
    assert {"scripted", "repairer"} <= set(known_providers())
    assert registry.PROVIDER_MODULES["scripted"] == "bench.model.scripted"
    assert registry.PROVIDER_MODULES["repairer"] == "bench.model.repairer"


def test_openai_api_service_env_and_nested_model_name(monkeypatch):
    monkeypatch.setenv("GROQ_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("GROQ_API_KEY", "sk-test-groq")
    model = get_model("openai-api/groq/llama-3/70b", ModelParams())
    assert isinstance(model, OpenAICompatibleModel)
    assert (model.model_id, model.served_name, model.base_url) == (
        "openai-api/groq/llama-3/70b",
        "llama-3/70b",
        "http://127.0.0.1:9/v1",
    )
    assert "sk-test-groq" not in repr(model)


def test_openai_api_service_with_dash_reads_underscored_env(monkeypatch):
    monkeypatch.setenv("TOGETHER_AI_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.delenv("TOGETHER_AI_API_KEY", raising=False)
    assert get_model("openai-api/together-ai/m").base_url == "http://127.0.0.1:9/v1"


def test_openai_api_without_base_url_names_the_variable(monkeypatch):
    monkeypatch.delenv("NOWHERE_BASE_URL", raising=False)
    with pytest.raises(UsageError, match="NOWHERE_BASE_URL"):
        get_model("openai-api/nowhere/model")


def test_openai_needs_api_key(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(UsageError, match="OPENAI_API_KEY"):
        get_model("openai/gpt-5-mini")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-x")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    model = get_model("openai/gpt-5-mini")
    assert (model.dialect, model.served_name, model.base_url) == ("openai", "gpt-5-mini", None)


def test_vllm_default_and_env_base_url(monkeypatch):
    monkeypatch.delenv("VLLM_BASE_URL", raising=False)
    assert get_model("vllm/Qwen/Qwen3-0.6B").base_url == "http://127.0.0.1:8000/v1"
    monkeypatch.setenv("VLLM_BASE_URL", "http://127.0.0.1:9/v1")
    model = get_model("vllm/Qwen/Qwen3-0.6B")
    assert (model.base_url, model.served_name) == ("http://127.0.0.1:9/v1", "Qwen/Qwen3-0.6B")


def test_ollama_host_variants(monkeypatch):
    monkeypatch.delenv("OLLAMA_HOST", raising=False)
    assert get_model("ollama/qwen3:0.6b").base_url == "http://127.0.0.1:11434"
    monkeypatch.setenv("OLLAMA_HOST", "127.0.0.1:9999")
    model = get_model("ollama/qwen3:0.6b")
    assert (model.base_url, model.served_name, model.model_id) == (
        "http://127.0.0.1:9999",
        "qwen3:0.6b",
        "ollama/qwen3:0.6b",
    )


def test_provider_module_registers_on_first_use(monkeypatch, tmp_path: Path):
    """How scripted/ and repairer/ plug in: a module listed in PROVIDER_MODULES registers itself on import."""
    (tmp_path / "lazy_provider_fixture.py").write_text(
        textwrap.dedent("""
        from bench.model.registry import register

        IMPORTS = []
        IMPORTS.append(1)

        @register("lazy-fixture")
        class LazyModel:
            deterministic = True

            def __init__(self, name, params):
                self.model_id = "lazy-fixture/" + name
                self.params = params
    """)
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(registry.PROVIDER_MODULES, "lazy-fixture", "lazy_provider_fixture")
    monkeypatch.delitem(registry._factories, "lazy-fixture", raising=False)
    monkeypatch.delitem(sys.modules, "lazy_provider_fixture", raising=False)
    params = ModelParams(seed=7)
    model = get_model("lazy-fixture/a/b:c", params)
    assert (model.model_id, model.params) == ("lazy-fixture/a/b:c", params)
    get_model("lazy-fixture/other")
    assert sys.modules["lazy_provider_fixture"].IMPORTS == [1]
    registry._factories.pop("lazy-fixture")


def test_provider_module_that_fails_to_import_is_a_usage_error(monkeypatch):
    monkeypatch.setitem(registry.PROVIDER_MODULES, "broken-fixture", "bench.model.no_such_module_here")
    with pytest.raises(UsageError, match="broken-fixture"):
        get_model("broken-fixture/x")


def test_importing_registry_and_providers_does_not_import_clients():
    code = (
        "import sys\n"
        "import bench.model.registry, bench.model.openai_compatible, bench.model.ollama\n"
        "import bench.attempt.prompt, bench.attempt.edits\n"
        "heavy = sorted(m for m in ('openai', 'httpx', 'httpx2', 'llama_cpp', 'numpy') if m in sys.modules)\n"
        "print(heavy)\n"
    )
    from bench.testing.support import child_env

    result = subprocess.run([sys.executable, "-c", code], env=child_env(), capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"
