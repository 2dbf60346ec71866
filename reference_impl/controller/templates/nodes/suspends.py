"""Suspend templates: a node that waits for a duration or for the user (`executeSuspend`).

Mirrors `workflow/controller/operator.go` `executeSuspend`: the node is a `Suspend` node,
created Pending and marked Running in the same pass. With `duration` it succeeds once the
node's `startedAt` + duration has passed (the workflow is requeued for that moment, or
for the workflow deadline when that comes first); without, it stays Running until the
user resumes it. Resuming is done the way `argo resume` does it (`workflow/util`
`ResumeWorkflow`): the user updates the Workflow, setting the Running Suspend node's
phase to Succeeded and its finishedAt; the controller then finds the node fulfilled and
goes on. A suspended node fails with the workflow deadline or a shutdown
(`failNodesWithoutCreatedPodsAfterDeadlineOrShutdown`, in `runtime.reconciling`).
"""

from __future__ import annotations

import datetime
from typing import TYPE_CHECKING
from typing import Any

from reference_impl.controller import errors
from reference_impl.controller.faults import Fault
from reference_impl.controller.formats import timestamps
from reference_impl.controller.templates.execution import ExecuteOptions
from reference_impl.controller.templates.execution import TemplateError
from reference_impl.controller.templates.nodes import timeouts

if TYPE_CHECKING:
    from reference_impl.controller.templates.operation import Operation

Json = dict[str, Any]
NODE_TYPE = "Suspend"


def execute(
    op: Operation, node_name: str, template: Json, opts: ExecuteOptions
) -> Json:
    """Create or advance the Suspend node; return it."""
    node = op.template_node(
        node_name, template, opts, node_type=NODE_TYPE, phase="Pending"
    )
    wake_up = op.workflow_deadline
    duration = str((template.get("suspend") or {}).get("duration") or "")
    if duration:
        try:
            length = timeouts.string_to_duration(duration)
        except errors.WorkflowError as err:
            op.mark_node(node_name, "Error", str(err))
            raise TemplateError(str(err)) from err
        started = timestamps.parse_time(node.get("startedAt")) or op.now
        resume_at = _timer_start(op, started) + length
        if op.now > resume_at:
            return op.mark_node(node_name, "Succeeded")
        if wake_up is None or resume_at < wake_up:
            wake_up = resume_at
    if wake_up is not None:
        op.requeue((wake_up - op.now).total_seconds())
    return op.mark_node(node_name, "Running")


def _timer_start(op: Operation, started: datetime.datetime) -> datetime.datetime:
    """Return the moment the duration counts from: the node's `startedAt`.

    Under the `restart-suspend-timer` fault (a chaos negative control), a node that
    started before this controller process did counts from the process's start, as if
    the timer lived in memory and a restart had reset it.
    """
    begun = op.process_started
    if (
        op.settings.has_fault(Fault.RESTART_SUSPEND_TIMER)
        and begun is not None
        and started < begun
    ):
        return begun
    return started


def is_active(node: Json) -> bool:
    """Return whether the node is a Suspend node still waiting (`IsActiveSuspendNode`)."""
    return node.get("type") == NODE_TYPE and node.get("phase") == "Running"
