"""The executor's errors, one root, each mapped to the exit code the contract asks for.

    ExecutorError                 exit 64: any emissary/executor error (Argo's main.go)
    ├── ConfigError               the environment or arguments are unusable
    ├── TemplateError             ARGO_TEMPLATE / /var/run/argo/template is unreadable
    ├── CommandNotFound           LookPath failed for the user's command
    ├── ArtifactError             an input or output artifact could not be moved
    ├── ApiError                  the Kubernetes API refused a request (status, reason)
    └── PreMainFailure            exit 65: init-less pre-main failure, seen by the emissary

The exit code lives on the class so that the one place that turns an exception
into a process exit (`exits.finish`) needs no table of its own.
"""

from __future__ import annotations

from reference_impl import common


class ExecutorError(Exception):
    """Root of the executor's errors; the process exits 64 (emissary error)."""

    exit_code: int = common.EXIT_EMISSARY_ERROR


class ConfigError(ExecutorError):
    """The environment or the command line cannot be used as given."""


class TemplateError(ExecutorError):
    """The template JSON is missing or malformed."""


class CommandNotFound(ExecutorError):
    """The user's command is not an executable file on PATH (Go's exec.LookPath)."""


class ArtifactError(ExecutorError):
    """An input artifact could not be loaded or an output artifact saved."""


class ApiError(ExecutorError):
    """The Kubernetes API answered with an error status.

    `status` is the HTTP status (0 when no answer arrived at all) and `reason`
    the `reason` field of the returned Status object, e.g. `AlreadyExists`.
    """

    def __init__(
        self, *, method: str, path: str, status: int, reason: str, message: str
    ) -> None:
        super().__init__(f"{method} {path}: {status} {reason}: {message}")
        self.method = method
        self.path = path
        self.status = status
        self.reason = reason
        self.message = message

    @property
    def transient(self) -> bool:
        """Whether retrying may help: no answer, throttling or a server-side error."""
        return self.status == 0 or self.status == 429 or self.status >= 500


class PreMainFailure(ExecutorError):
    """The supervisor failed (or is presumed dead) before main could start.

    The emissary exits 65 and writes 65 to its exitcode file, so the controller
    can attribute the failure to the supervisor (contract section 2.3).
    """

    exit_code = common.EXIT_PRE_MAIN_FAILURE
