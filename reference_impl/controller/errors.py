"""Errors of the reference controller.

One root, so callers can catch everything the controller raises on purpose::

    ControllerError
    ├── SettingsError          bad flags or environment at start-up (e.g. an unknown fault name)
    ├── ConfigError            the controller ConfigMap cannot be parsed
    ├── WorkflowError          one workflow cannot proceed; fails that workflow, never the controller
    │   ├── ValidationError    the spec is invalid (Argo's `invalid spec: ...` messages)
    │   └── PodBuildError      a pod for one node cannot be built (e.g. an unknown volume)
    └── ApiError               a Kubernetes API call failed; carries the verb, object and status
        ├── NotFound
        ├── AlreadyExists
        └── Conflict           optimistic-concurrency failure; the work item is re-queued
"""

from __future__ import annotations


class ControllerError(Exception):
    """Root of every error the reference controller raises deliberately."""


class SettingsError(ControllerError):
    """The process was started with flags or environment it cannot run with."""


class ConfigError(ControllerError):
    """The controller ConfigMap holds something the controller cannot parse."""


class WorkflowError(ControllerError):
    """One workflow cannot proceed; the message is what the user sees in its status."""


class ValidationError(WorkflowError):
    """The workflow spec is invalid; the message follows Argo's validation wording."""


class PodBuildError(WorkflowError):
    """The pod for one node cannot be built; the node fails with this message."""


class ApiError(ControllerError):
    """A Kubernetes API call failed.

    Carries what was attempted and the HTTP status so logs can be pasted into a bug.
    """

    def __init__(self, *, verb: str, target: str, status: int, reason: str) -> None:
        super().__init__(f"{verb} {target} failed with HTTP {status}: {reason}")
        self.verb = verb
        self.target = target
        self.status = status
        self.reason = reason

    @property
    def transient(self) -> bool:
        """Return whether retrying later may succeed (Argo's `IsTransientErr`, quota included)."""
        return self.status in (0, 429, 500, 502, 503, 504) or (
            self.status == 403 and "exceeded quota" in self.reason
        )


class NotFound(ApiError):
    """HTTP 404."""


class AlreadyExists(ApiError):
    """HTTP 409 on create."""


class Conflict(ApiError):
    """HTTP 409 on update or patch with a stale resourceVersion."""
