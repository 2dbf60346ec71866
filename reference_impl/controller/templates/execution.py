"""Types shared by the template executors (`leaves`, `steps`, `dags`, `retries`).

Kept apart from `operation` so that the executors can use them without importing the
operation module that imports them.
"""

from __future__ import annotations

import dataclasses
import datetime
from typing import Any
from typing import Protocol

from reference_impl.controller import errors

Json = dict[str, Any]

KINDS = (
    "container",
    "script",
    "steps",
    "dag",
    "containerSet",
    "resource",
    "suspend",
    "data",
    "http",
    "plugin",
)


class TemplateError(errors.WorkflowError):
    """A template could not be executed; its node has already been marked Error."""


class Effects(Protocol):
    """The side effects an operation may cause, apart from updating the Workflow itself."""

    def create_pod(self, pod: Json) -> None:
        """Create the pod; an existing pod of the same name counts as success."""
        ...

    def terminate_pod(self, namespace: str, name: str) -> None:
        """Queue `terminateContainers` for the pod (SIGTERM now, SIGKILL after the grace period)."""
        ...

    def delete_pod(self, namespace: str, name: str) -> None:
        """Queue the pod's deletion (a node that timed out while Pending frees its resources)."""
        ...


@dataclasses.dataclass(frozen=True)
class ExecuteOptions:
    """Where a template is executed from (Argo's `executeTemplateOpts`)."""

    boundary_id: str = ""
    on_exit: bool = False
    """The node belongs to an onExit handler (Stop lets it run; pods are labelled on-exit)."""
    hooked: bool = False
    """The node is the workflow's onExit node itself (`nodeFlag.hooked`)."""
    execution_deadline: datetime.datetime | None = None
    """Retry `maxDuration` deadline for the attempt being created."""


def template_type(template: Json) -> str | None:
    """Return a template's kind (`container`, `script`, `steps`, `dag`, ...)."""
    for kind in KINDS:
        if template.get(kind) is not None:
            return kind
    return None
