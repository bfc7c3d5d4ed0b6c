"""The harness's exception tree.

Every error the harness raises on purpose derives from :class:`BenchError`. Only the CLI catches broadly and
turns an error into an exit code and a one-line message (``bench.cli.main``); library code lets errors travel.

::

    BenchError                      exit 1 unless a subclass says otherwise
    ├── UsageError                  exit 2  bad command line (unknown verb, bad selector, bad flag value)
    ├── SpecError                   exit 2  a task spec or candidate file is invalid
    │   └── DuplicateTaskError      exit 2  two specs share a task id
    ├── EditError                   exit 1  a model's edit cannot be parsed or applied (scored invalid_edit)
    ├── CheckFailed                 exit 1  the thing checked is not as required (gate drop, verify mismatch)
    └── InfrastructureError         exit 3  the environment, not the input, failed
        ├── SandboxError            exit 3  a sandbox could not be created, run or torn down
        ├── ImageError              exit 3  an image could not be built, or its digest is not the pinned one
        ├── EnvironmentBuildError   exit 3  lock resolution, wheel download or venv install failed
        ├── SourceError             exit 3  a repository or sdist could not be fetched or checked out
        ├── ClusterError            exit 3  the cluster's scheduler cannot be reached or has no usable worker
        ├── EnvironmentMismatch     exit 3  a cluster worker's pins (lock, image, runner) differ from the client's
        └── EndpointError           exit 3  a model endpoint failed (connection, auth, 5xx after retries)
            └── EndpointTimeout     exit 3  no usable response in the budget (scored model_timeout)
                └── ContextOverflow exit 3  the prompt does not fit the model's context (model_timeout too)
"""

from __future__ import annotations

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_INFRA = 3


class BenchError(Exception):
    """Root of every error the harness raises on purpose."""

    exit_code = EXIT_FAILED


class UsageError(BenchError):
    exit_code = EXIT_USAGE


class SpecError(BenchError):
    """A task spec is invalid. ``kind`` names the rule broken so tests can assert it exactly."""

    exit_code = EXIT_USAGE

    def __init__(self, message: str, *, kind: str, path: str = "", pointer: str = "") -> None:
        self.message = message
        self.kind = kind
        self.path = path
        self.pointer = pointer
        where = f"{path}: " if path else ""
        at = f" (at {pointer})" if pointer else ""
        super().__init__(f"{where}{kind}: {message}{at}")


class DuplicateTaskError(SpecError):
    pass


class EditError(BenchError):
    """A model edit that cannot be parsed or applied; ``reason`` is a short machine-readable tag."""

    def __init__(self, message: str, *, reason: str) -> None:
        self.reason = reason
        super().__init__(f"{reason}: {message}")


class CheckFailed(BenchError):
    pass


class InfrastructureError(BenchError):
    exit_code = EXIT_INFRA


class SandboxError(InfrastructureError):
    pass


class ImageError(InfrastructureError):
    pass


class EnvironmentBuildError(InfrastructureError):
    pass


class SourceError(InfrastructureError):
    pass


class ClusterError(InfrastructureError):
    pass


class EnvironmentMismatch(InfrastructureError):
    pass


class EndpointError(InfrastructureError):
    pass


class EndpointTimeout(EndpointError):
    pass


class ContextOverflow(EndpointTimeout):
    """The prompt alone fills the model's context window, so no answer can come within the token budget.

    A limit of the model as configured, not a failure of the endpoint: scored ``model_timeout`` and kept in the
    denominator, like a reply cut off by ``max_tokens``; excluding such tasks would flatter small-context models.
    """
