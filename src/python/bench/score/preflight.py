"""Checks before a run does expensive work, so a run that cannot succeed stops at once with the reason.

- the model's endpoint, for providers that talk to one over HTTP (the model's ``preflight()``): reachable
  (else exit 3), taking the key and serving the route and model the run uses (else exit 2): an
  OpenAI-compatible server answers a short chat completion, an Ollama server lists the model;
- the scripted model's trajectories: every selected task has one (else exit 2, with the command that makes
  them); cheap, so checked even with ``--no-preflight``;
- PR tasks' sources: each task's repository with both its commits, from ``--mirror``, ``BENCH_MIRROR_DIR``,
  the clone cache or a clone — before any image or environment is built (else exit 3). With ``--cluster`` the
  workers fetch their own sources, so this check is theirs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

REMOTE_PROVIDERS = ("openai", "openai-api", "vllm", "ollama")  # built cheaply; local models load weights when built


def check_endpoint(model_id: str, params) -> None:
    from bench.model.registry import get_model, split_model_id

    provider, _ = split_model_id(model_id)
    if provider not in REMOTE_PROVIDERS:
        return
    model = get_model(model_id, params)
    check = getattr(model, "preflight", None)
    if check is not None:
        check()


def check_model_covers(model_id: str, params, specs: Sequence) -> None:
    """A model that can answer only the tasks it has data for (``scripted/<study>``) has it for every one."""
    from bench.model.registry import get_model, split_model_id

    provider, _ = split_model_id(model_id)
    if provider != "scripted":
        return
    get_model(model_id, params).check_covers(tuple(spec.task_id for spec in specs))


def check_sources(specs: Sequence, mirror: Path | None) -> None:
    from bench.spec.kind_registry import get_kind

    for spec in specs:
        get_kind(spec.kind).check_sources(spec, mirror=mirror)
