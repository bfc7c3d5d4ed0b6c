"""Every environment variable the harness reads, in one place, with what it means.

Code reads these through :func:`get` (or the helpers below), never through ``os.environ`` directly, so this
module is the complete list. Variables that configure model endpoints follow provider conventions and are
read only by the provider modules, which list them in :data:`PROVIDER_VARIABLES`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Variable:
    name: str
    default: str
    doc: str


VARIABLES = {
    v.name: v
    for v in (
        Variable("BENCH_ROOT", "", "The benchmark checkout (tasks/, images/, lockfiles/). Default: the nearest "
                 "folder upwards from the working directory that holds pants.toml and tasks/."),
        Variable("BENCH_CACHE_DIR", "~/.cache/loopcontrolbench", "Images, wheelhouse, venvs, action cache."),
        Variable("BENCH_SANDBOX", "bwrap", "Default sandbox backend (bwrap | docker)."),
        Variable("BENCH_DOCKER_HOST", "", "Docker daemon for the docker backend (else DOCKER_HOST, else default)."),
        Variable("BENCH_MIRROR_DIR", "", "Folder of bare git mirrors named <owner>+<name>; used before a task's URL."),
        Variable("BENCH_CLUSTER", "", "Dask scheduler address (tcp://HOST:8786) that `bench score`, `certify`, "
                 "`admit` and `mutate --admit` send their work to, as --cluster does; empty: this process."),
        Variable("BENCH_PROFILE", "", "A file a `bench` command writes at its end: busy seconds per phase (image, lock, "
                 "venv, certify, score, probes) and the sandboxed runs' own wall time in each (bench.profile)."),
        Variable("BENCH_NO_PROGRESS", "", "Set to 1 to hide progress bars on stderr."),
        Variable("BENCH_PLUGINS", "", "Comma-separated modules to import when a model provider or sandbox backend "
                 "is not known: each registers its own (bench.plugins)."),
    )
}

# Read by model providers only (names follow each provider's own convention).
PROVIDER_VARIABLES = {
    "OPENAI_API_KEY": "Key for openai/<model>.",
    "OPENAI_BASE_URL": "Endpoint for openai/<model> (default: the provider's).",
    "<SERVICE>_BASE_URL": "Endpoint for openai-api/<service>/<model>.",
    "<SERVICE>_API_KEY": "Key for openai-api/<service>/<model>.",
    "VLLM_BASE_URL": "Endpoint for vllm/<model>.",
    "OLLAMA_HOST": "Endpoint for ollama/<model:tag> (default http://127.0.0.1:11434).",
}


def get(name: str) -> str:
    var = VARIABLES[name]
    return os.environ.get(name, var.default)


def cache_dir() -> Path:
    return Path(os.path.expanduser(get("BENCH_CACHE_DIR")))


def find_root(start: Path | None = None) -> Path:
    """The benchmark checkout holding tasks/, images/ and lockfiles/."""
    from bench.errors import UsageError

    explicit = get("BENCH_ROOT")
    if explicit:
        return Path(explicit).resolve()
    here = (start or Path.cwd()).resolve()
    for candidate in (here, *here.parents):
        if (candidate / "pants.toml").is_file() and (candidate / "tasks").is_dir():
            return candidate
    raise UsageError("cannot find the benchmark checkout (a folder with pants.toml and tasks/); "
                     "run from inside it or set BENCH_ROOT")


def find_checkout() -> Path | None:
    """The checkout :func:`find_root` finds, or None outside one."""
    from bench.errors import UsageError

    try:
        return find_root()
    except UsageError:
        return None


def candidates_dir(name: str) -> Path:
    """Where `bench mine` and `bench mutate` write candidates unless told: `.bench/candidates/<name>` in the
    checkout, which git and Pants ignore, so mining leaves nothing to commit (outside a checkout: under the
    working directory)."""
    return (find_checkout() or Path()) / ".bench" / "candidates" / name
